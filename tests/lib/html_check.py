#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that a page of tract's, or one of its SVG pictures, is markup a
name in it cannot have changed.

usage: html_check.py [--xml] [--scripts N] [--text STRING]... [--pictures DIR] FILE

An HTML page (the default) must be UTF-8 without control characters; every
element not void closed, in order, by an end tag of its own (no misnesting,
no end tag left over, no self-closing element outside inline SVG); every '&'
the start of a reference HTML defines; no <script> element; no on*
attribute, no javascript: URL.  Each <object class="pic"> holds its picture
as a data:image/svg+xml;base64 URL: it is decoded and checked as an SVG
(with --pictures DIR, also written there as N-ALT.svg, in page order).

An SVG (--xml, and each picture of a page) must parse as XML (well formed,
UTF-8, no entity XML does not define, no character it cannot hold), with no
on* attribute and no javascript: URL.

--scripts N: the pictures (or the SVG) hold N <script> elements in all.
--text STRING: STRING is text in the page or a picture, as characters once
parsed: a name that was not escaped reads as markup or as other characters.

Says what is wrong and exits 1, or exits 0.
"""
import argparse
import base64
import html.entities
import html.parser
import os
import re
import sys
import xml.etree.ElementTree as ET

VOID = {'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source',
        'track', 'wbr'}
# what HTML forbids in text: C0 controls but tab, LF, FF and CR; DEL and the C1 controls
CONTROL = re.compile('[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]')
REFERENCE = re.compile(r'&(#[0-9]+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)?')
PICTURE_URL = 'data:image/svg+xml;base64,'


def is_event(name):
    return name.split(':')[-1].split('}')[-1].lower().startswith('on')


def is_script_url(value):
    return re.sub(r'[\s\x00-\x1f]', '', value or '').lower().startswith('javascript:')


def bad_reference(ref):
    """What is wrong with a reference ("&amp;", "&#0;", "&"), or None."""
    if ref == '&':
        return 'a bare &'
    body = ref[1:-1]
    if body[0] != '#':
        return None if body + ';' in html.entities.html5 else 'an undefined entity'
    code = int(body[2:], 16) if body[1] in 'xX' else int(body[1:])
    if code > 0x10ffff or 0xd800 <= code <= 0xdfff or CONTROL.match(chr(code)) or code == 0:
        return 'a reference to a character HTML forbids'
    return None


class Checker:
    def __init__(self, pictures_dir):
        self.errors = []
        self.texts = []          # every text node, as characters
        self.scripts = 0         # <script> elements in SVGs
        self.pictures = 0
        self.pictures_dir = pictures_dir

    def error(self, where, what):
        self.errors.append(f'{where}: {what}')

    def svg(self, data, where):
        try:
            root = ET.fromstring(data)
        except ET.ParseError as e:
            self.error(where, f'not well-formed XML: {e}')
            return
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            if el.tag.split('}')[-1] == 'script':
                self.scripts += 1
            for name, value in el.attrib.items():
                if is_event(name):
                    self.error(where, f'an event attribute {name}="{value[:40]}" on <{el.tag}>')
                if is_script_url(value):
                    self.error(where, f'a javascript: URL in {name} of <{el.tag}>')
            self.texts += [t for t in (el.text, el.tail) if t]

    def page(self, data, where):
        try:
            text = data.decode('utf-8')
        except UnicodeDecodeError as e:
            self.error(where, f'not UTF-8: {e}')
            return
        for m in CONTROL.finditer(text):
            self.error(where, f'a control character U+{ord(m.group()):04X} at offset {m.start()}')
        for m in REFERENCE.finditer(text):
            why = bad_reference(m.group())
            if why:
                self.error(where, f'{why} at offset {m.start()}: {text[m.start():m.start() + 20]!r}')
        parser = PageParser(self, where)
        parser.feed(text)
        parser.close()
        if parser.stack:
            self.error(where, 'elements never closed: ' + ' '.join(f'<{t}>' for t in parser.stack))

    def picture(self, url, alt, where):
        self.pictures += 1
        where = f'{where}, picture {self.pictures} ({alt})'
        if not url.startswith(PICTURE_URL):
            self.error(where, f'not a {PICTURE_URL} URL: {url[:60]}')
            return
        try:
            data = base64.b64decode(url[len(PICTURE_URL):], validate=True)
        except ValueError as e:
            self.error(where, f'not base64: {e}')
            return
        if self.pictures_dir:
            slug = re.sub('[^a-z0-9]+', '-', alt.lower()).strip('-') or 'picture'
            with open(os.path.join(self.pictures_dir, f'{self.pictures}-{slug}.svg'), 'wb') as f:
                f.write(data)
        self.svg(data, where)


class PageParser(html.parser.HTMLParser):
    def __init__(self, checker, where):
        super().__init__(convert_charrefs=True)
        self.checker, self.where = checker, where
        self.stack = []
        self.picture = None      # the open <object class="pic">: its URL and its text
        self.svg_depth = 0       # inside inline SVG, where <x/> closes x

    def error(self, what):
        line, col = self.getpos()
        self.checker.error(f'{self.where}:{line}:{col}', what)

    def attributes(self, tag, attrs):
        if tag == 'script':
            self.error('a <script> element')
        for name, value in attrs:
            if is_event(name):
                self.error(f'an event attribute {name}="{(value or "")[:40]}" on <{tag}>')
            if is_script_url(value):
                self.error(f'a javascript: URL in {name} of <{tag}>')

    def handle_starttag(self, tag, attrs):
        self.attributes(tag, attrs)
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag == 'svg':
            self.svg_depth += 1
        if tag == 'object' and 'pic' in (dict(attrs).get('class') or '').split():
            self.picture = [dict(attrs).get('data') or '', '']

    def handle_startendtag(self, tag, attrs):
        self.attributes(tag, attrs)
        if tag not in VOID and not self.svg_depth:
            self.error(f'<{tag}/> outside SVG: HTML does not close it')

    def handle_endtag(self, tag):
        if tag in VOID:
            self.error(f'an end tag </{tag}> of a void element')
        elif not self.stack:
            self.error(f'</{tag}> closes nothing')
        elif self.stack[-1] != tag:
            self.error(f'</{tag}> closes <{self.stack[-1]}> (misnested)')
        else:
            self.stack.pop()
            if tag == 'svg':
                self.svg_depth -= 1
            if tag == 'object' and self.picture:
                self.checker.picture(self.picture[0], self.picture[1].strip(), self.where)
                self.picture = None

    def handle_data(self, data):
        self.checker.texts.append(data)
        if self.picture:
            self.picture[1] += data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--xml', action='store_true', help='FILE is an SVG, not a page')
    ap.add_argument('--scripts', type=int, default=0, help='<script> elements the pictures hold in all')
    ap.add_argument('--text', action='append', default=[], help='text that must be there, as characters')
    ap.add_argument('--pictures', metavar='DIR', help="write the page's pictures into DIR")
    ap.add_argument('file')
    a = ap.parse_args()
    c = Checker(a.pictures)
    with open(a.file, 'rb') as f:
        data = f.read()
    if a.xml:
        c.svg(data, a.file)
    else:
        c.page(data, a.file)
    if c.scripts != a.scripts:
        c.error(a.file, f'{c.scripts} <script> elements in its SVG, not {a.scripts}')
    for t in a.text:
        # as given, bytes and all
        t = os.fsencode(t).decode('utf-8', 'surrogateescape')
        if not any(t in s for s in c.texts):
            c.error(a.file, f'{t!r} is not in its text')
    for e in c.errors[:40]:
        print(e)
    if len(c.errors) > 40:
        print(f'... and {len(c.errors) - 40} more')
    if not c.errors:
        print(f'{a.file}: well formed' + ('' if a.xml else f', {c.pictures} pictures') +
              f', {c.scripts} <script> elements in SVG')
    return 1 if c.errors else 0


if __name__ == '__main__':
    sys.exit(main())
