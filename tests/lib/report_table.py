#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Print one table of a tract report, as its reader sees it.

usage: report_table.py FILE TITLE

The table under the heading TITLE (an <h3> of "Where the time went"), a line
a row, its cells tab-separated as text (references decoded, markup gone),
each line led by the row's level: "head" for the column names, "outer" for
a value of a two-level table's first column (with its sum, or its one
row), "inner" for a
row under it, "-" for a row of a table of one level.  Exits 1 if there is
no such table.
"""
import html.parser
import sys


class Tables(html.parser.HTMLParser):
    def __init__(self, title):
        super().__init__(convert_charrefs=True)
        self.title, self.in_h3, self.h3 = title, False, ''
        self.mine, self.found, self.rows, self.cell = False, False, [], None

    def handle_starttag(self, tag, attrs):
        if tag == 'h3':
            self.in_h3, self.h3 = True, ''
        elif self.mine and tag == 'tr':
            level = (dict(attrs).get('class') or '-').split()[0]
            self.rows.append([level])
        elif self.mine and tag in ('td', 'th'):
            self.cell = ''
            if tag == 'th':
                self.rows[-1][0] = 'head'

    def handle_endtag(self, tag):
        if tag == 'h3':
            self.in_h3 = False
            self.mine = self.h3 == self.title
            self.found = self.found or self.mine
        elif tag == 'table':
            self.mine = False
        elif self.mine and tag in ('td', 'th') and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.in_h3:
            self.h3 += data
        elif self.cell is not None:
            self.cell += data


def main():
    path, title = sys.argv[1], sys.argv[2]
    with open(path, encoding='utf-8') as f:
        t = Tables(title)
        t.feed(f.read())
    if not t.found:
        print(f'no table "{title}" in {path}', file=sys.stderr)
        return 1
    for row in t.rows:
        print('\t'.join(row))
    return 0


if __name__ == '__main__':
    sys.exit(main())
