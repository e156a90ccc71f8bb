#!/usr/bin/python3
"""Independent reference for the tokenizer tests (tests/unit/test_tokenizer_oracle.c).

Written separately from src/llm: plain, quadratic textbook algorithms, and Python's own `re`
engine for the split patterns (\\p{..} and \\s expanded into explicit character classes from
unicodedata, since `re` has no \\p). For a seed it writes random small tokenizer files of the
three formats, random texts and the ids this reference gives them:

  tokenizer_oracle.py OUTDIR SEED

OUTDIR/pretok.cases  lines "KIND HEXTEXT END,END,..."   (pre-token end offsets in bytes)
OUTDIR/{tiktoken,hf,spm}.{tok,cases}  a tokenizer file, and lines "HEXTEXT FLAGS ID ID ..."
"""
import base64
import json
import os
import random
import re
import sys
import unicodedata

PATTERNS = {
    "gpt2": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    "cl100k": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "qwen2": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "o200k": "|".join([
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""", r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""", r"""\s*[\r\n]+""", r"""\s+(?!\S)""", r"""\s+"""]),
}
PATTERN_ID = {"gpt2": 1, "cl100k": 2, "qwen2": 3, "o200k": 4}

WHITE_SPACE = [(0x9, 0xD), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
               (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)]


_CATS = []


def category_ranges(prefixes):
    if not _CATS:
        _CATS.extend(unicodedata.category(chr(cp)) for cp in range(0x110000))
    out, start = [], None
    for cp in range(0x110000):
        cat = _CATS[cp]
        ok = any(cat.startswith(p) if len(p) == 1 else cat == p for p in prefixes)
        if ok and start is None:
            start = cp
        if not ok and start is not None:
            out.append((start, cp - 1))
            start = None
    if start is not None:
        out.append((start, 0x10FFFF))
    return out


def class_body(ranges):
    def esc(c):
        return "\\U%08x" % c
    return "".join(esc(a) if a == b else esc(a) + "-" + esc(b) for a, b in ranges)


_BODIES = {}


def body(name):
    if name not in _BODIES:
        if name == "s":
            _BODIES[name] = class_body(WHITE_SPACE)
        elif name == "M":
            _BODIES[name] = class_body(category_ranges(["Mn", "Mc", "Me"]))
        else:
            _BODIES[name] = class_body(category_ranges([name]))
    return _BODIES[name]


def translate(pat):
    """\\p{X}, \\s, \\S -> explicit classes for Python's re."""
    out, i, inside = [], 0, False
    while i < len(pat):
        c = pat[i]
        if c == "\\" and pat[i + 1] == "p":
            j = pat.index("}", i)
            b = body(pat[i + 3:j])
            out.append(b if inside else "[" + b + "]")
            i = j + 1
            continue
        if c == "\\" and pat[i + 1] in "sS":
            b = body("s")
            if inside:
                assert pat[i + 1] == "s"
                out.append(b)
            else:
                out.append(("[" if pat[i + 1] == "s" else "[^") + b + "]")
            i += 2
            continue
        if c == "\\":
            out.append(pat[i:i + 2])
            i += 2
            continue
        if c == "[":
            inside = True
        elif c == "]":
            inside = False
        out.append(c)
        i += 1
    return re.compile("".join(out))


_COMPILED = {}


def pieces(kind, text):
    if kind not in _COMPILED:
        _COMPILED[kind] = translate(PATTERNS[kind])
    rx = _COMPILED[kind]
    out, pos = [], 0
    for m in rx.finditer(text):
        assert m.start() == pos, (kind, text, m.start(), pos)
        if m.end() > m.start():
            out.append(m.group(0))
        pos = m.end()
    assert pos == len(text)
    return out


ALPHABET = ["a", "b", "Z", "é", "É", "ß", "Ж", "ж", "中", "ǅ", "ʰ", "\u0301", "\u0903", "0", "7", "٣", "²", "Ⅻ",
            " ", " ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u0085", "\u3000", "\u2028", "'", "'s", "'S", "'ll", "'LL",
            "'re", "'Ve", "'d", "'M", "'t", "'x", "'\u017f", "\u212a", ".", ",", "!", "/", "-", "😀", "\u200b", "\r", "\x0b", "\x1c"]


def random_text(rng, n):
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, n)))


# ---- byte-level helpers (GPT-2 bytes_to_unicode) ----
def byte_to_char():
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    m, extra = {}, 0
    for b in range(256):
        if b in printable:
            m[b] = chr(b)
        else:
            m[b] = chr(256 + extra)
            extra += 1
    return m


B2C = byte_to_char()


def bl(bs):
    return "".join(B2C[b] for b in bs)


def split_specials(text, specials):
    """Leftmost, then longest, special token matches: [(is_special, str)]."""
    out, pos, seg = [], 0, 0
    while pos < len(text):
        best = None
        for s in specials:
            if text.startswith(s, pos) and (best is None or len(s) > len(best)):
                best = s
        if best:
            out.append((False, text[seg:pos]))
            out.append((True, best))
            pos += len(best)
            seg = pos
        else:
            pos += 1
    out.append((False, text[seg:]))
    return [x for x in out if x[0] or x[1]]


def rank_merge(parts, rank_of):
    """Repeatedly merge the adjacent pair of lowest rank (leftmost on ties)."""
    while True:
        best, at = None, -1
        for i in range(len(parts) - 1):
            r = rank_of(parts[i], parts[i + 1])
            if r is not None and (best is None or r < best):
                best, at = r, i
        if at < 0:
            return parts
        parts = parts[:at] + [parts[at] + parts[at + 1]] + parts[at + 2:]


def grow_vocab(rng, base, n, maxlen):
    toks = list(base)
    seen = set(toks)
    tries = 0
    while len(toks) < len(base) + n and tries < 100000:
        tries += 1
        a, b = rng.choice(toks[: 40 + len(toks) // 2]), rng.choice(toks[: 40 + len(toks) // 2])
        if rng.random() < 0.7:  # favour tokens made of the text's characters
            a = rng.choice([t for t in toks if t and t[0] in FAV] or toks)
            b = rng.choice([t for t in toks if t and t[0] in FAV] or toks)
        c = a + b
        if c in seen or len(c) > maxlen:
            continue
        seen.add(c)
        toks.append(c)
    return toks


FAV = set("ab \n'0é7.".encode()) | set("é中".encode())


def gen_tiktoken(rng, out):
    kind = rng.choice(["gpt2", "cl100k", "qwen2", "o200k"])
    order = list(range(256))
    rng.shuffle(order)
    base = [bytes([b]) for b in order]
    toks = grow_vocab(rng, base, 400, 10)
    ranks = {t: i for i, t in enumerate(toks)}
    specials = ["<|end|>", "<|e|>"]
    with open(os.path.join(out, "tiktoken.tok"), "w") as f:
        for t, r in ranks.items():
            f.write("%s %d\n" % (base64.b64encode(t).decode(), r))
    lines = ["PATTERN %s" % kind]
    for _ in range(150):
        text = random_text(rng, 30)
        if rng.random() < 0.2:
            text += rng.choice(specials) + random_text(rng, 10)
        ids = []
        for is_sp, seg in split_specials(text, specials):
            if is_sp:
                ids.append(len(toks) + specials.index(seg))
                continue
            for p in pieces(kind, seg):
                bs = p.encode()
                if bs in ranks:
                    ids.append(ranks[bs])
                    continue
                parts = rank_merge([bytes([b]) for b in bs], lambda x, y: ranks.get(x + y))
                ids.extend(ranks[x] for x in parts)
        inv = {r: t for t, r in ranks.items()}
        dec = b"".join(inv[i] if i in inv else specials[i - len(toks)].encode() for i in ids)
        lines.append("%s 0 %s %s" % (text.encode().hex() or "-", dec.hex() or "-", " ".join(map(str, ids))))
    with open(os.path.join(out, "tiktoken.cases"), "w") as f:
        f.write("\n".join(lines) + "\n")


def gen_hf(rng, out):
    kind = rng.choice(["gpt2", "cl100k", "qwen2"])
    prefix = rng.random() < 0.5
    ignore = rng.random() < 0.5
    base = [bytes([b]) for b in range(256)]
    rng.shuffle(base)
    vocab = {t: i for i, t in enumerate(base)}
    merges, rank = [], {}
    toks = list(base)
    for _ in range(4000):
        if len(merges) >= 300:
            break
        pool = [t for t in toks if t[0] in FAV] or toks
        a, b = rng.choice(pool), rng.choice(pool)
        if (a, b) in rank or len(a + b) > 10:
            continue
        rank[(a, b)] = len(merges)
        merges.append((a, b))
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
            toks.append(a + b)
    # a few vocab entries no merge can build (only ignore_merges reaches them)
    for w in [b" ab", b"ab", b"\xc3\xa9a", b"'s"]:
        if w not in vocab:
            vocab[w] = len(vocab)
    specials = ["<|end|>", "<x>"]
    added = [{"id": len(vocab) + i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, s in enumerate(specials)]
    pre = {"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": True, "use_regex": True}
    if kind != "gpt2":
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": PATTERNS[kind]}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": True, "use_regex": False}]}
    merges_json = [bl(a) + " " + bl(b) for a, b in merges] if rng.random() < 0.5 else [[bl(a), bl(b)] for a, b in merges]
    doc = {"version": "1.0", "added_tokens": added, "normalizer": None, "pre_tokenizer": pre,
           "post_processor": None, "decoder": {"type": "ByteLevel"},
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "ignore_merges": ignore,
                     "vocab": {bl(t): i for t, i in vocab.items()}, "merges": merges_json}}
    with open(os.path.join(out, "hf.tok"), "w") as f:
        json.dump(doc, f, ensure_ascii=rng.random() < 0.5)
    lines = []
    for _ in range(150):
        text = random_text(rng, 30)
        if rng.random() < 0.2:
            text += rng.choice(specials) + random_text(rng, 10)
        ids = []
        for is_sp, seg in split_specials(text, specials):
            if is_sp:
                ids.append(len(vocab) + specials.index(seg))
                continue
            if prefix and not seg.startswith(" "):
                seg = " " + seg
            for p in pieces(kind, seg):
                bs = p.encode()
                if ignore and bs in vocab:
                    ids.append(vocab[bs])
                    continue
                parts = rank_merge([bytes([b]) for b in bs], lambda x, y: rank.get((x, y)))
                ids.extend(vocab[x] for x in parts)
        inv = {i: t for t, i in vocab.items()}
        dec = b"".join(inv[i] if i in inv else specials[i - len(vocab)].encode() for i in ids)
        lines.append("%s 0 %s %s" % (text.encode().hex() or "-", dec.hex() or "-", " ".join(map(str, ids))))
    with open(os.path.join(out, "hf.cases"), "w") as f:
        f.write("\n".join(lines) + "\n")


def gen_spm(rng, out):
    pieces_ = [b"<unk>", b"\n<s>\n", b"\n</s>\n"] + [("<0x%02X>" % b).encode() for b in range(256)]
    chars = [c.encode() for c in [" ", "a", "b", "Z", "é", "中", "'", "0", "\n", "."]]
    base = list(chars)
    toks = grow_vocab(rng, base, 250, 8)
    scores = {}
    vocab = list(pieces_)
    for t in toks:
        if t in vocab:
            continue
        vocab.append(t)
        scores[t] = float(rng.choice([-1, -2, -3, -4, -5, -6, -7, -8, -9.5, -100]))
    index = {}
    for i, t in enumerate(vocab):
        index.setdefault(t, i)
    maxlen = max(len(t) for t in vocab)
    with open(os.path.join(out, "spm.tok"), "wb") as f:
        f.write(maxlen.to_bytes(4, "little", signed=True))
        import struct
        for t in vocab:
            f.write(struct.pack("<fi", scores.get(t, 0.0), len(t)))
            f.write(t)
    lines = []
    for _ in range(150):
        text = random_text(rng, 30)
        bs = text.encode()
        if not bs:
            lines.append("- 1 - 1")
            continue
        # llama2.c: dummy prefix, one symbol per UTF-8 character (byte fallback +3), merge best score
        sym = [index[b" "]] if b" " in index else []
        i = 0
        while i < len(bs):
            j = i + 1
            while j < len(bs) and j - i < 4 and (bs[j] & 0xC0) == 0x80:
                j += 1
            ch = bs[i:j]
            if ch in index:
                sym.append(index[ch])
            else:
                sym.extend(b + 3 for b in ch)
            i = j
        while True:
            best, at, mid = -1e10, -1, -1
            for k in range(len(sym) - 1):
                c = vocab[sym[k]] + vocab[sym[k + 1]]
                if c in index and scores.get(c, 0.0) > best:
                    best, at, mid = scores.get(c, 0.0), k, index[c]
            if at < 0:
                break
            sym = sym[:at] + [mid] + sym[at + 2:]
        ids = [1] + sym
        dec = b""
        for k in range(1, len(ids)):
            piece = vocab[ids[k]]
            if ids[k - 1] == 1 and piece.startswith(b" "):
                piece = piece[1:]
            m = re.fullmatch(rb"<0x([0-9A-F]{2})>", piece)
            dec += bytes([int(m.group(1), 16)]) if m else piece
        lines.append("%s 1 %s %s" % (bs.hex(), dec.hex() or "-", " ".join(map(str, ids))))
    with open(os.path.join(out, "spm.cases"), "w") as f:
        f.write("\n".join(lines) + "\n")


def gen_pretok(rng, out):
    lines = []
    for kind in ["gpt2", "cl100k", "qwen2", "o200k"]:
        for _ in range(300):
            text = random_text(rng, 40)
            ends, pos = [], 0
            for p in pieces(kind, text):
                pos += len(p.encode())
                ends.append(pos)
            lines.append("%d %s %s" % (PATTERN_ID[kind], text.encode().hex() or "-", ",".join(map(str, ends)) or "-"))
    with open(os.path.join(out, "pretok.cases"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    out, seed = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    gen_pretok(rng, out)
    gen_tiktoken(rng, out)
    gen_hf(rng, out)
    gen_spm(rng, out)


if __name__ == "__main__":
    main()
