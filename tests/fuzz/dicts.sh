#!/bin/sh
# dicts.sh TARGET - prints the libFuzzer dictionary for TARGET: the XML
# tokens every target reads, and the WS-Security, MIME or deferral tokens
# of the targets that reach them.  One place for the choice, used by the
# OSS-Fuzz build (oss-fuzz/build.sh) and the long campaigns (campaign.sh).
set -eu
d=$(dirname "$0")/dict
case ${1:?usage: dicts.sh TARGET} in
receive*) cat "$d/xml.dict" "$d/wss.dict" ;;
multipart) cat "$d/mime.dict" "$d/xml.dict" ;;
deferred) cat "$d/xml.dict" "$d/deferred.dict" ;;
*) cat "$d/xml.dict" ;;
esac
