#!/bin/sh
# deps.sh [build|bench|profile|memcheck|interop|lint|all] - makes sure the Debian packages
# domlab needs are installed: installs the missing ones when run as root,
# otherwise prints the exact command to run and fails.  `build` is what
# building and `make test` / `make check` need (clang and its libFuzzer
# runtime for the smoke fuzzing; libmicrohttpd, libcurl and the curl
# command for domlab serve, domlab load and tests/http.sh); `bench`,
# `profile` and `memcheck` add what those targets need; `lint` is cppcheck
# and Python for `make lint`.  `interop` is Apache WSS4J and a JDK for
# tests/wss4j.sh: optional for the tests (the suite counts its tests as
# not run without them), installed by CI, never needed by `make bench`.
# The Makefile runs this from one rule (mk/deps.mk).
set -eu
what=${1:-all}
build="gcc g++ make pkg-config libxml2-dev libssl-dev libmicrohttpd-dev libcurl4-openssl-dev curl libbenchmark-dev openssl xmlsec1 libxmlsec1-dev libxml2-utils libpugixml-dev clang libclang-rt-14-dev"
bench="$build libbenchmark-tools python3-scipy python3-matplotlib gsoap libgsoap-dev"
profile="$build google-perftools libgoogle-perftools-dev graphviz valgrind"
memcheck="$build valgrind"
interop="default-jdk-headless libwss4j-java"
lint="cppcheck python3"
case "$what" in
build) pkgs=$build ;;
profile) pkgs=$profile ;;
memcheck) pkgs=$memcheck ;;
interop) pkgs=$interop ;;
bench) pkgs=$bench ;;
lint) pkgs=$lint ;;
all) pkgs="$bench $profile $interop $lint" ;;
*) echo "usage: deps.sh [build|bench|profile|memcheck|interop|lint|all]" >&2; exit 1 ;;
esac
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "domlab needs these Debian packages; run as root:" >&2
	echo "  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
