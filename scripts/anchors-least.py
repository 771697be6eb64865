#!/usr/bin/env python3
"""Per-query least CPU over several bench/anchors runs (issue 41; docs/benchmarks/anchors-1m.md#s27).

  anchors-least.py NAME=ROWS[,ROWS...] [NAME=ROWS[,ROWS...] ...]

Each ROWS is a folder written by `bench/anchors -save ROWS` with one engine's
row (its first *.row in name order is read). For each NAME, every query's
CPU is the least over that NAME's runs (the first column of a row's query
lines, in ns); it prints p50, mean, p90 and p99 of those, and for every NAME
after the first the median per-query ratio NAME ÷ the first and the ratio of
the p50s. One run's p50 moves by a third between runs minutes apart on the
2-CPU machine; a query's least over runs taken turn about moves much less.
"""
import glob, statistics, sys


def cpu(folder):
    rows = sorted(glob.glob(folder + '/*.row'))
    if not rows:
        sys.exit('anchors-least: no *.row in ' + folder)
    lines = open(rows[0], encoding='utf-8').read().split('\n')[2:]
    return [int(l.split('\t')[0]) for l in lines if l.strip()]


def least(folders):
    runs = [cpu(f) for f in folders]
    if len({len(r) for r in runs}) != 1:
        sys.exit('anchors-least: the runs of %s hold different query counts' % ','.join(folders))
    return [min(q) for q in zip(*runs)]


def main(args):
    if not args or any('=' not in a for a in args):
        sys.exit(__doc__)
    groups = []
    for a in args:
        name, folders = a.split('=', 1)
        groups.append((name, least(folders.split(',')), len(folders.split(','))))
    first_name, first, _ = groups[0]
    for name, v, runs in groups:
        s = sorted(v)
        p = lambda f: s[min(len(s) - 1, int(len(s) * f))] / 1e6
        print('%s: %d queries, least of %d runs: p50 %.3f ms, mean %.3f, p90 %.3f, p99 %.3f'
              % (name, len(v), runs, p(0.5), sum(v) / len(v) / 1e6, p(0.9), p(0.99)))
        if name != first_name:
            if len(v) != len(first):
                sys.exit('anchors-least: %s and %s hold different query counts' % (first_name, name))
            r = statistics.median(b / a for a, b in zip(first, v) if a > 0)
            print('  %s / %s: median per-query ratio %.3f, p50 ratio %.3f'
                  % (name, first_name, r, p(0.5) / (sorted(first)[len(first) // 2] / 1e6)))


if __name__ == '__main__':
    main(sys.argv[1:])
