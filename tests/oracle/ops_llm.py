"""Oracle cases for the LLM custom operators (kernels/llm, issue 18): llama::custom_sdpa.out,
llama::sdpa_with_kv_cache.out, llama::update_cache.out, llama::update_cache_with_indices.out.

Semantics from upstream's extension/llm/custom_ops (op_sdpa.cpp, op_update_cache.cpp): query
[B, S, Hq, D] attends over cache rows [0, start_pos + S) of [B, L, Hkv, D] caches, query head h
using kv head h // (Hq // Hkv); is_causal: query s sees keys j <= start_pos + s; attn_mask is a
float [S, start_pos + S] added to the scaled scores; scale defaults to 1/sqrt(D). The attention
is computed here in float64 by numpy. update_cache writes the cache in place and returns its
placeholder `out` unchanged, so only its error cases are tabled (tests/unit/test_llm_sdpa.c
checks the cache contents)."""
import numpy as np

from oracle import F32, I64, Out, T

RNG = np.random.default_rng(18)


def _r(shape):
    return np.asarray(RNG.uniform(-1.0, 1.0, size=shape), dtype=np.float32)


def _attn(q, kc, vc, start, mask=None, causal=False, scale=None):
    B, S, Hq, D = q.shape
    Hkv = kc.shape[2]
    n = start + S
    k = np.repeat(kc[:, :n].astype(np.float64), Hq // Hkv, axis=2)
    v = np.repeat(vc[:, :n].astype(np.float64), Hq // Hkv, axis=2)
    sc = np.einsum("bshd,bjhd->bhsj", q.astype(np.float64), k)
    sc *= (1.0 / np.sqrt(D)) if scale is None else scale
    if mask is not None:
        sc = sc + mask.astype(np.float64)
    if causal:
        sc = sc + np.where(np.arange(n)[None, :] > np.arange(S)[:, None] + start, -np.inf, 0.0)
    w = np.exp(sc - sc.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return np.einsum("bhsj,bjhd->bshd", w, v).astype(np.float32)


# float32 results of sums over up to a few hundred products: 1e-5 relative / 2e-6 absolute
TOL = (1e-5, 2e-6)


def cases(g):
    op = "llama::custom_sdpa.out"
    # prefill, GQA 4/2, causal, start 0
    q, kc, vc = _r((1, 5, 4, 16)), _r((1, 8, 2, 16)), _r((1, 8, 2, 16))
    g.case(op, "prefill_gqa_causal", [q, kc, vc, 0, None, 0.0, True, None], [Out(_attn(q, kc, vc, 0, causal=True))],
           tol=TOL)
    # decode one token at position 6 with an explicit scale, batch 2, odd head dim
    q, kc, vc = _r((2, 1, 6, 13)), _r((2, 9, 3, 13)), _r((2, 9, 3, 13))
    g.case(op, "decode_scale", [q, kc, vc, 6, None, 0.0, True, 0.25],
           [Out(_attn(q, kc, vc, 6, causal=True, scale=0.25))], tol=TOL)
    # non-causal over start + S rows
    q, kc, vc = _r((1, 3, 2, 8)), _r((1, 7, 2, 8)), _r((1, 7, 2, 8))
    g.case(op, "noncausal_mha", [q, kc, vc, 2, None, 0.0, False, None], [Out(_attn(q, kc, vc, 2))], tol=TOL)
    # explicit additive mask with -inf entries
    q, kc, vc = _r((1, 2, 4, 8)), _r((1, 6, 1, 8)), _r((1, 6, 1, 8))
    m = _r((2, 5))
    m[0, 3] = m[1, 0] = -np.inf
    g.case(op, "mask_mqa", [q, kc, vc, 3, m, 0.0, False, None], [Out(_attn(q, kc, vc, 3, mask=m))], tol=TOL)
    # long: 300 keys (two tiles of 256), 70 rows x 2 heads (three 64-row blocks)
    q, kc, vc = _r((1, 70, 4, 16)), _r((1, 300, 2, 16)), _r((1, 300, 2, 16))
    g.case(op, "long_tiles", [q, kc, vc, 230, None, 0.0, True, None],
           [Out(_attn(q, kc, vc, 230, causal=True))], tol=TOL)
    # errors
    q, kc = _r((1, 2, 3, 8)), _r((1, 6, 2, 8))
    g.case(op, "err_heads", [q, kc, kc, 0, None, 0.0, True, None], [Out(dtype=F32, shape=(1, 2, 3, 8))],
           error=("InvalidArgument", "multiple of the kv heads"))
    q = _r((1, 2, 4, 8))
    g.case(op, "err_past_cache", [q, kc, kc, 5, None, 0.0, True, None], [Out(dtype=F32, shape=(1, 2, 4, 8))],
           error=("InvalidArgument", "exceeds the cache length"))
    g.case(op, "err_mask_causal", [q, kc, kc, 1, _r((2, 3)), 0.0, True, None], [Out(dtype=F32, shape=(1, 2, 4, 8))],
           error=("InvalidArgument", "attn_mask and is_causal"))
    g.case(op, "err_f64", [q.astype(np.float64), kc, kc, 0, None, 0.0, True, None],
           [Out(dtype=F32, shape=(1, 2, 4, 8))], error=("InvalidArgument", "query must be float32"))

    op = "llama::sdpa_with_kv_cache.out"
    # prefill 3 at 0 into zero caches, then the output only depends on the new rows
    q, k, v = _r((1, 3, 4, 8)), _r((1, 3, 2, 8)), _r((1, 3, 2, 8))
    kc, vc = np.zeros((1, 6, 2, 8), np.float32), np.zeros((1, 6, 2, 8), np.float32)
    kn, vn = kc.copy(), vc.copy()
    kn[:, 0:3], vn[:, 0:3] = k, v
    g.case(op, "prefill", [q, k, v, kc, vc, 0, 3, None, 0.0, True, None], [Out(_attn(q, kn, vn, 0, causal=True))],
           tol=TOL)
    # decode at 4 over a history
    q, k, v = _r((1, 1, 4, 8)), _r((1, 1, 2, 8)), _r((1, 1, 2, 8))
    kc, vc = _r((1, 6, 2, 8)), _r((1, 6, 2, 8))
    kn, vn = kc.copy(), vc.copy()
    kn[:, 4:5], vn[:, 4:5] = k, v
    g.case(op, "decode", [q, k, v, kc, vc, 4, 1, None, 0.0, True, None], [Out(_attn(q, kn, vn, 4, causal=True))],
           tol=TOL)
    g.case(op, "err_past_cache", [q, k, v, kc, vc, 6, 1, None, 0.0, True, None], [Out(dtype=F32, shape=(1, 1, 4, 8))],
           error=("InvalidArgument", "exceeds the cache length"))

    op = "llama::update_cache.out"
    g.case(op, "err_past_cache", [_r((1, 2, 2, 4)), _r((1, 4, 2, 4)), 3], [Out(dtype=F32, shape=(1,))],
           error=("InvalidArgument", "exceeds the cache length 4"))
    g.case(op, "err_heads", [_r((1, 2, 2, 4)), _r((1, 4, 3, 4)), 0], [Out(dtype=F32, shape=(1,))],
           error=("InvalidArgument", "heads (dim 2)"))
    op = "llama::update_cache_with_indices.out"
    g.case(op, "err_index", [_r((1, 2, 2, 4)), _r((1, 4, 2, 4)), 0, T(np.array([[0, 4]], np.int64))],
           [Out(dtype=F32, shape=(1,))], error=("InvalidArgument", "outside the cache length 4"))
    g.case(op, "err_index_dtype", [_r((1, 2, 2, 4)), _r((1, 4, 2, 4)), 0, T(np.array([[0, 1]], np.int32))],
           [Out(dtype=F32, shape=(1,))], error=("InvalidArgument", "indices must be int64"))
