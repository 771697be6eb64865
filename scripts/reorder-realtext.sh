#!/usr/bin/env bash
# Writes a real-text corpus for BenchmarkReorder (docs/benchmarks/reorder.md)
# from what Debian installed on this machine: the English manual pages
# (/usr/share/man/man1-8), their troff markup stripped by a few perl rules
# rather than rendered (groff costs about a second a page here), and the
# plain-text documentation under /usr/share/doc (README*, *.txt, *.md,
# *.rst; changelogs and copyright files left out). One text file per page
# or document, paragraphs separated by blank lines, at most 2 MB each;
# nothing is committed.
#
#   scripts/reorder-realtext.sh /tmp/realtext
#   MCPVEC_REORDER_CORPUS=/tmp/realtext go test -run '^$' -bench Reorder -benchtime 1x ./index/lexical/
set -euo pipefail
out=${1:?usage: reorder-realtext.sh OUT}
export LC_ALL=C.UTF-8
mkdir -p "$out/man" "$out/doc"
{
	ls /usr/share/man/man[1-8]/* | sed 's/^/man\t/'
	find /usr/share/doc -type f \( -iname 'README*' -o -name '*.txt' -o -name '*.txt.gz' -o -name '*.md' \
		-o -name '*.md.gz' -o -name '*.rst' \) ! -iname '*changelog*' ! -name copyright | sort | sed 's/^/doc\t/'
} | perl -MIO::Uncompress::Gunzip=gunzip -e '
	my $out = shift;
	# troff: comments and unknown requests dropped, paragraph and section
	# requests a blank line, font requests their text, escapes removed.
	sub strip {
		my $t = "";
		for (split /\n/, shift) {
			next if /^[.\x27]\s*\\"/;
			if (/^[.\x27]\s*(SH|SS|PP|LP|P|TP|IP|HP|sp|br|Sh|Ss|Pp)\b\s*(.*)$/) { $t .= "\n\n"; next if $2 eq ""; $_ = $2 }
			elsif (/^[.\x27]\s*(B|I|BR|BI|IB|IR|RB|RI|SM|SB|Nm|Nd|Ar|Fl|Op|It|Pa|Xr|Dl|Em)\b\s*(.*)$/) { $_ = $2 }
			elsif (/^[.\x27]/) { next }
			s/\\f(\[[^\]]*\]|\(..|.)//g; s/\\\(..//g; s/\\\[[^\]]*\]//g; s/\\[-e]/-/g; s/\\&//g; s/\\.//g; s/"//g;
			$t .= "$_\n";
		}
		return $t;
	}
	my ($pages, $docs) = (0, 0);
	while (my $line = <STDIN>) {
		chomp $line;
		my ($kind, $f) = split /\t/, $line, 2;
		my $data;
		if ($f =~ /\.gz$/) { gunzip($f => \$data) or next } else { local $/; open(my $h, "<", $f) or next; $data = <$h> }
		$data = substr($data, 0, 2_000_000);
		next if $kind eq "man" && $data =~ /^\.so /m && length($data) < 200;   # an include of another page
		my $text = $kind eq "man" ? strip($data) : $data;
		next unless $text =~ /\S/;
		(my $name = $f) =~ s{^/usr/share/(man|doc)/}{}; $name =~ s{/}{_}g; $name =~ s/\.gz$//;
		open(my $o, ">", "$out/$kind/$name.txt") or die "$out/$kind/$name.txt: $!";
		print $o $text; close $o;
		$kind eq "man" ? $pages++ : $docs++;
	}
	print STDERR "man pages: $pages, doc files: $docs\n";
' "$out"
