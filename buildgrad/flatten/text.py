"""Source text: the whole lines of a statement, the comments that ast leaves out, and edits at
the positions ast gives (lines counted from 1, columns in UTF-8 bytes), so that everything
not edited keeps its layout and its comments."""

import ast
import io
import textwrap
import tokenize

from buildgrad.flatten.errors import FlattenError


def _tokens(text):
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


class Source:
    def __init__(self, text, chapter):
        self.text, self.chapter = text, chapter
        self.lines = text.splitlines()
        try:
            self.tree = ast.parse(text)
        except SyntaxError as error:
            raise FlattenError(f"{chapter.where(error.lineno)}: {error.msg}") from None
        self.tokens = _tokens(text)
        self.comment_lines = {t.start[0] for t in self.tokens
                              if t.type == tokenize.COMMENT and not t.line[:t.start[1]].strip()}
        self.trailing = {t.start[0]: t.string for t in self.tokens
                         if t.type == tokenize.COMMENT and t.line[:t.start[1]].strip()}

    def first_line(self, node):
        return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])

    def block(self, first, last):
        """Lines ``first`` to ``last`` (counted from 1), dedented."""
        return textwrap.dedent("\n".join(self.lines[first - 1:last]))

    def statement(self, node, decorators=True):
        """A statement's whole lines, dedented: it must have its lines to itself."""
        before = self.lines[node.lineno - 1][:node.col_offset]
        after = self.lines[node.end_lineno - 1][node.end_col_offset:].strip()
        if before.strip() or (after and not after.startswith("#")):
            raise FlattenError(f"{self.chapter.where(node.lineno)}: put one statement per line")
        return self.block(self.first_line(node) if decorators else node.lineno, node.end_lineno)

    def segment(self, node):
        return ast.get_source_segment(self.text, node)

    def colon_line(self, node):
        """The line of the colon that ends a ``class`` (or ``def``) header."""
        depth = 0
        for token in self.tokens:
            if token.start < (node.lineno, node.col_offset) or token.type != tokenize.OP:
                continue
            depth += token.string in "([{"
            depth -= token.string in ")]}"
            if token.string == ":" and depth == 0:
                return token.start[0]
        return node.lineno

    def gap(self, previous_end, node):
        """What lies between a statement and the one before it: the comment blocks that stand
        apart, the comment block right above the statement, and the blank lines above that."""
        lines = list(range(previous_end + 1, self.first_line(node)))
        attached = []
        while lines and lines[-1] in self.comment_lines:
            attached.insert(0, lines.pop())
        blank = 0
        while lines and not self.lines[lines[-1] - 1].strip():
            blank, _ = blank + 1, lines.pop()
        apart, run = [], []
        for line in lines + [None]:
            if line in self.comment_lines:
                run.append(line)
            elif run:
                apart.append(self.block(run[0], run[-1]))
                run = []
        return apart, self.block(attached[0], attached[-1]) if attached else "", blank


def edit(text, edits):
    """``text`` with each span ``((line, col), (end_line, end_col), new_text)`` replaced."""
    starts = [0]
    for line in text.encode().splitlines(True):
        starts.append(starts[-1] + len(line))
    data = text.encode()
    for (line, col), (end_line, end_col), new in sorted(edits, key=lambda e: e[0], reverse=True):
        data = data[:starts[line - 1] + col] + new.encode() + data[starts[end_line - 1] + end_col:]
    return data.decode()


def rename_edits(text, nodes, new_text):
    """Edits replacing each Name node by ``new_text[node.id]``, after checking that the text
    at its position is that name (a guard against odd positions inside f-strings)."""
    lines = text.encode().splitlines()
    edits = []
    for node in nodes:
        if lines[node.lineno - 1][node.col_offset:node.end_col_offset].decode() != node.id:
            raise FlattenError(f"cannot rename {node.id!r} at line {node.lineno} safely")
        edits.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset),
                      new_text[node.id]))
    return edits


def indent(text, prefix):
    return "\n".join(prefix + line if line.strip() else "" for line in text.split("\n"))


def _body_start(text, function):
    """The first line of a def's body after its docstring (comment lines included)."""
    if ast.get_docstring(function, clean=False) is not None:
        return function.body[0].end_lineno + 1
    depth = 0
    for token in _tokens(text):
        if token.start < (function.lineno, function.col_offset) or token.type != tokenize.OP:
            continue
        depth += token.string in "([{"
        depth -= token.string in ")]}"
        if token.string == ":" and depth == 0:
            return token.start[0] + 1
    return function.body[0].lineno
