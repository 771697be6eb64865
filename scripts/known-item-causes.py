#!/usr/bin/env python3
"""Why known-item queries miss their passage (issue 41; docs/benchmarks/known-item.md).

  known-item-causes.py pick SET ROWS [mcpvec|lucene|found]
      prints the query numbers (0-based lines of SET/queries.tsv) whose passage
      Lucene's top 10 holds and mcpvec's does not (or, with "mcpvec", the
      reverse; with "found", every query Lucene finds, so that
      TestKnownItemCauses ranks them with the code under test), from
      bench/anchors -save ROWS
  known-item-causes.py tally CAUSES CLASSES
      reads TestKnownItemCauses' output (CAUSES), runs Lucene's EnglishAnalyzer
      on each query (bench/anchors/lucene/Tok.java, compiled into CLASSES) and
      prints each query's cause and the count per cause
"""
import glob, os, re, subprocess, sys
from collections import Counter



def rows(path, n):
    lines = open(path, encoding='utf-8').read().split('\n')[2:2 + n]
    return [[int(x) for x in (l.split('\t') + [''])[1].split()] for l in lines]


def pick(setdir, rowdir, winner):
    ps = [tuple(l.rstrip('\n').split('\t', 2)[:2]) for l in open(setdir + '/passages.tsv', encoding='utf-8')]
    qs = [l.rstrip('\n').split('\t') for l in open(setdir + '/queries.tsv', encoding='utf-8')]
    m = rows(glob.glob(rowdir + '/mcpvec*.row')[0], len(qs))
    lu = rows(sorted(glob.glob(rowdir + '/Lucene*.row'))[0], len(qs))
    hit = lambda ids, q: any(ps[i] == (q[1], q[2]) for i in ids)
    for i, q in enumerate(qs):
        a, b = hit(m[i], q), hit(lu[i], q)
        if (winner == 'lucene' and b and not a) or (winner == 'mcpvec' and a and not b) or (winner == 'found' and b):
            print(i)


def lucene_terms(queries, classes):
    cp = ':'.join(sorted(glob.glob('/usr/share/java/lucene-core-8.*.jar'))[-1:] +
                  sorted(glob.glob('/usr/share/java/lucene-analyzers-common-8.*.jar'))[-1:] + [classes])
    out = subprocess.run(['java', '-cp', cp, 'Tok'], input='\n'.join(queries) + '\n',
                         capture_output=True, text=True, check=True).stdout
    return out.split('\n')


STOP = set('''a about above after again against all am an and any are as at be because been before being below
between both but by can did do does doing don down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
off on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with you your yours yourself yourselves'''.split())


def stopish(w):
    # Lucene's Porter stems of Snowball stop words (doe, ha, mai, us, onli, ...)
    return w in STOP or any(s.startswith(w) and len(w) >= len(s) - 2 for s in STOP if len(s) > 2)


GO_ESCAPE = re.compile(r'\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|.)')


def go_unquote(s):
    # the inside of a Go %q string: printable runes stay as they are; \xNN
    # (a byte of invalid UTF-8) comes back as U+FFFD
    def one(m):
        e = m.group(1)
        if e[0] in 'uU' and len(e) > 1:
            return chr(int(e[1:], 16))
        if e[0] == 'x' and len(e) == 3:
            return '\ufffd'
        return {'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v'}.get(e, e)
    return GO_ESCAPE.sub(one, s)


def tally(causes, classes):
    txt = open(causes, encoding='utf-8').read()
    blocks = re.findall(r'FLAGS q(\d+) (\S*)\n=== q\d+ (\w+) rank=(-?\d+)  query="(.*)"\n   terms=\[(.*)\]', txt)
    queries = [go_unquote(b[4]) for b in blocks]
    count = Counter()
    for b, q, luc in zip(blocks, queries, lucene_terms(queries, classes)):
        flags, rank = b[1], int(b[3])
        extra = set(luc.split()) - set(b[5].split())
        if 0 <= rank < 10:
            cause = 'found now'
        elif 'R' in flags:
            cause = 'R query read in another language than its passage'
        elif 'P' in flags:
            cause = 'P passage read in another language than the query'
        elif 'D' in flags:
            cause = 'D a passage of the same text ranks above'
        elif any(stopish(w) for w in extra):
            cause = 'S Lucene keeps a word the Snowball stop list drops'
        elif 'K' in flags:
            cause = 'K same words, found with k1 = 1.2'
        elif extra:
            cause = 'T other terms (stemmer, tokenizer)'
        else:
            cause = '= same terms, ranked lower (k1, b, lengths)'
        count[cause] += 1
        print(b[0], flags or '-', rank, cause, '|', q[:60], '| lucene:', luc)
    for k, v in sorted(count.items()):
        print('%4d  %s' % (v, k))
    print('%4d  total' % sum(count.values()))


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'pick':
        pick(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else 'lucene')
    elif len(sys.argv) == 4 and sys.argv[1] == 'tally':
        tally(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
