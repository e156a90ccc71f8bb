#!/bin/sh
# pte tokenize: encodes with transformers' toy GPT-2 tokenizer (the vocab and merges of
# tests/models/gpt2/test_tokenization_gpt2.py; published: "lower newer" with a prefix space ->
# 14 15 10 9 3 2 15), decodes ids back, --json, and a bad file / bad id as clean failures.
set -eu
CLI=${PTE_CLI:?PTE_CLI not set}
T=$(mktemp -d "${PTE_TMP:-/tmp}/tokenize.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
cat > "$T/tokenizer.json" <<'JSON'
{"version": "1.0",
 "added_tokens": [{"id": 20, "content": "<|endoftext|>", "special": true}],
 "normalizer": null,
 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
 "decoder": {"type": "ByteLevel"},
 "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>",
  "vocab": {"l": 0, "o": 1, "w": 2, "e": 3, "r": 4, "s": 5, "t": 6, "i": 7, "d": 8, "n": 9, "\u0120": 10,
            "\u0120l": 11, "\u0120n": 12, "\u0120lo": 13, "\u0120low": 14, "er": 15, "\u0120lowest": 16,
            "\u0120newer": 17, "\u0120wider": 18, "<unk>": 19, "<|endoftext|>": 20},
  "merges": ["\u0120 l", "\u0120l o", "\u0120lo w", "e r"]}}
JSON
fail=0
check() { # name expected actual
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected [$2], got [$3]" >&2; fail=$((fail + 1)); fi
}
out=$("$CLI" tokenize "$T/tokenizer.json" --text "lower newer" --eos)
check "encode ids" "8 ids: 14 15 10 9 3 2 15 20" "$(echo "$out" | sed -n 2p)"
check "encode pieces" 'pieces: " low" "er" " " "n" "e" "w" "er" "<|endoftext|>"' "$(echo "$out" | sed -n 3p)"
check "decode" " lower newer" "$("$CLI" tokenize "$T/tokenizer.json" --decode "14,15,10,9,3,2,15")"
json=$("$CLI" tokenize "$T/tokenizer.json" --text "lower newer" --json)
check "json" "[14, 15, 10, 9, 3, 2, 15] hf-bpe 21 20" "$(printf '%s' "$json" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["ids"], d["format"], d["vocab_size"], d["eos_id"])')"
if "$CLI" tokenize "$T/tokenizer.json" --decode "21" 2>"$T/err" >/dev/null; then
  echo "FAIL: id 21 decoded" >&2; fail=$((fail + 1))
fi
grep -q "token id 21 is not in the vocabulary" "$T/err" || { echo "FAIL: bad id message: $(cat "$T/err")" >&2; fail=$((fail + 1)); }
printf '{"model": {"type": "Unigram"}}' > "$T/bad.json"
if "$CLI" tokenize "$T/bad.json" --text x 2>"$T/err" >/dev/null; then echo "FAIL: Unigram loaded" >&2; fail=$((fail + 1)); fi
grep -q "bad.json: line 1 col 20: model type (only BPE): Unigram" "$T/err" || { echo "FAIL: bad file message: $(cat "$T/err")" >&2; fail=$((fail + 1)); }
if [ "$fail" -ne 0 ]; then echo "$fail failed"; exit 1; fi
echo "8 passed, 0 failed"
