/* kernels/portable/util/elementwise.h — generic elementwise loops for the portable kernels.
 *
 * An elementwise op is described by per-element functions for a floating compute type (double
 * arithmetic, rounded to the compute dtype) and for an integral/bool compute type (int64
 * arithmetic, wrapped to the compute dtype), plus an optional float32 "run" function used when
 * every operand is float32 (the fast path). The loops broadcast inputs to out's shape (out must
 * already be resized), honour every operand's strides (any dim_order), convert each input to the
 * compute dtype, round the result to the compute dtype and store it converted to out's dtype.
 *
 * Scalars are passed as 0-dim tensors built with pte_k_scalar_init().
 */
#ifndef PTE_KERNELS_PORTABLE_UTIL_ELEMENTWISE_H
#define PTE_KERNELS_PORTABLE_UTIL_ELEMENTWISE_H

#include "portable/util/kutil.h"

#ifdef __cplusplus
extern "C" {
#endif

/* p: the op's parameter block (may carry an error flag the element function sets). */
typedef double (*pte_k_fd1)(double a, void *p);
typedef int64_t (*pte_k_fi1)(int64_t a, void *p);
/* Float32 run: n elements, o/a stepping by so/sa elements. */
typedef void (*pte_k_f32run1)(float *o, const float *a, int64_t n, int64_t so, int64_t sa, void *p);

typedef double (*pte_k_fd2)(double a, double b, void *p);
typedef int64_t (*pte_k_fi2)(int64_t a, int64_t b, void *p);
typedef void (*pte_k_f32run2)(float *o, const float *a, const float *b, int64_t n, int64_t so,
                              int64_t sa, int64_t sb, void *p);

typedef double (*pte_k_fd3)(double a, double b, double c, void *p);
typedef int64_t (*pte_k_fi3)(int64_t a, int64_t b, int64_t c, void *p);

typedef struct pte_k_unop {
  pte_k_fd1 fd;     /* floating compute; NULL if the op has none */
  pte_k_fi1 fi;     /* integral / bool compute; NULL if the op has none */
  pte_k_f32run1 f32; /* optional float32 fast path */
} pte_k_unop;

typedef struct pte_k_binop {
  pte_k_fd2 fd;
  pte_k_fi2 fi;
  pte_k_f32run2 f32;
} pte_k_binop;

typedef struct pte_k_ternop {
  pte_k_fd3 fd;
  pte_k_fi3 fi;
} pte_k_ternop;

/* out = op(a) elementwise in dtype `compute`. a must be broadcastable to out. Returns false (and
 * does nothing) if the op lacks a function for compute's category. */
bool pte_k_ew_unary(const pte_tensor *a, pte_tensor *out, int compute, const pte_k_unop *op,
                    void *p);
/* out = op(a, b). */
bool pte_k_ew_binary(const pte_tensor *a, const pte_tensor *b, pte_tensor *out, int compute,
                     const pte_k_binop *op, void *p);
/* out = op(a, b, c). */
bool pte_k_ew_ternary(const pte_tensor *a, const pte_tensor *b, const pte_tensor *c,
                      pte_tensor *out, int compute, const pte_k_ternop *op, void *p);

/* Copies src into dst converting dtype (src broadcast to dst's shape, any layouts). Same-dtype
 * dense same-dim-order copies are a memcpy. */
void pte_k_copy_convert(const pte_tensor *src, pte_tensor *dst);
/* Fills every element of t with v (as pte_k_store_double / store_int64 would convert it). */
void pte_k_fill_double(pte_tensor *t, double v);
void pte_k_fill_int64(pte_tensor *t, int64_t v);

/* A 0-dim tensor holding one value, for passing a Scalar to the loops. Do not copy the struct
 * after init (t.data points into it). */
typedef struct pte_k_scalar {
  pte_tensor t;
  union {
    double d;
    int64_t i;
    float f;
    uint16_t h;
    uint8_t b;
  } v;
  int32_t dummy_sizes[1];
  int32_t dummy_strides[1];
  uint8_t dummy_order[1];
} pte_k_scalar;

/* Makes s a 0-dim tensor of dtype holding v converted like pte_k_store_double. */
const pte_tensor *pte_k_scalar_init_double(pte_k_scalar *s, int dtype, double v);
/* Same, converted like pte_k_store_int64. */
const pte_tensor *pte_k_scalar_init_int64(pte_k_scalar *s, int dtype, int64_t v);
/* From a Scalar EValue (Int -> int64 conversion, Double -> double, Bool -> 0/1); NULL if ev is
 * not a scalar. */
const pte_tensor *pte_k_scalar_init(pte_k_scalar *s, int dtype, const pte_evalue *ev);

/* ATen's op-math type: HALF and BFLOAT16 compute in FLOAT; other dtypes in themselves. */
static inline int pte_k_opmath(int dtype) {
  return (dtype == PTE_DTYPE_HALF || dtype == PTE_DTYPE_BFLOAT16) ? PTE_DTYPE_FLOAT : dtype;
}

/* How a unary kernel's result dtype follows from its input. */
typedef enum pte_k_unary_rule {
  PTE_K_UNARY_SAME,       /* result = input dtype (bool rejected unless allow_bool) */
  PTE_K_UNARY_TO_FLOAT,   /* floating input keeps its dtype, integral/bool gives FLOAT */
  PTE_K_UNARY_FLOAT_ONLY  /* input must be floating; result = input dtype */
} pte_k_unary_rule;

/* Whole unary kernel: args = self, <n_params scalar args the caller reads>, out[, ret].
 * Checks nargs/tags/dtypes, derives the result dtype by `rule`, requires canCast(result, out),
 * resizes out to self's shape, runs op in pte_k_opmath(result) and sets the return slot.
 * Failures are reported through ctx (InvalidArgument). Returns true on success. */
bool pte_k_unary_kernel(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t n_params,
                        pte_k_unary_rule rule, bool allow_bool, const pte_k_unop *op, void *p,
                        const char *name);
/* Argument set-up of a kernel with args = self, <n_params args the caller reads>, out[, ret].
 * Checks nargs and the two tensor tags and that both dtypes are supported ("self",
 * "out"); fills *in / *out. Failures are reported through ctx. */
bool pte_k_self_out_args(pte_kernel_context *ctx, pte_evalue **args, size_t nargs, size_t n_params,
                         pte_tensor **in, pte_tensor **out);
/* Result dtype of a unary kernel for input dtype `in` under `rule` (PTE_K_DTYPE_INVALID if the
 * input is not allowed). */
int pte_k_unary_result(int in, pte_k_unary_rule rule, bool allow_bool);

#ifdef __cplusplus
}
#endif
#endif
