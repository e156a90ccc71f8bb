/* tools/cli/npy.h — numpy .npy files (format versions 1.0, 2.0 and 3.0) for the CLI.
 *
 * Reading: the header is a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}.
 * Supported descr values (byte order '<' little-endian, '|' not applicable, or '=' native, which is
 * little-endian on every host pte supports):
 *   f2 f4 f8  -> float16 float32 float64      i1 i2 i4 i8 -> int8 int16 int32 int64
 *   u1 u2 u4 u8 -> uint8 uint16 uint32 uint64  b1 -> bool       c8 c16 -> complex64 complex128
 *   V2        -> bfloat16 (numpy has no bfloat16 type: ml_dtypes arrays saved with np.save carry
 *               a 2-byte void descr; pte reads the two bytes as bfloat16)
 * Big-endian data ('>' with an element size > 1) is rejected with a message saying so, as are
 * structured dtypes, object arrays, pickles and ranks above 16. Fortran-order arrays are converted to
 * C order on load. Every dimension must fit in int32 (pte's tensor sizes).
 *
 * Writing: version 1.0 (2.0 when the header exceeds 65535 bytes), C order, header padded with
 * spaces and a newline so the data starts at a multiple of 64 bytes, as numpy does. bfloat16
 * tensors are written as float32 ('<f4': exact widening) because numpy cannot represent bfloat16;
 * every other dtype above is written as itself. Quantized and sub-byte dtypes have no numpy
 * equivalent and are refused.
 *
 * Errors are reported as a return value of -1 with a one-line message in err (which may be NULL).
 */
#ifndef PTE_TOOLS_NPY_H
#define PTE_TOOLS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/tensor.h"

typedef struct pte_npy_array {
  int dtype;                    /* pte_dtype */
  int32_t dim;
  int32_t sizes[PTE_MAX_RANK];
  void *data;                   /* C-order data, heap (64-byte aligned); NULL when nbytes is 0 */
  size_t nbytes;
  bool fortran_order;           /* the file was Fortran order (data has been converted) */
  int major, minor;             /* format version of the file */
} pte_npy_array;

/* The numpy descr written for a dtype ("<f4", "|b1", ...), or NULL when numpy has no equivalent
 * (bfloat16 returns "<f4": it is written widened). */
const char *pte_npy_descr(int dtype);

/* True if buf starts with the .npy magic "\x93NUMPY". */
bool pte_npy_is_npy(const void *buf, size_t len);

/* Parses a whole .npy image. On success *out owns a heap copy of the data (pte_npy_free). */
int pte_npy_parse(const void *buf, size_t len, pte_npy_array *out, char *err, size_t err_size);

/* Reads and parses a .npy file. */
int pte_npy_load(const char *path, pte_npy_array *out, char *err, size_t err_size);

void pte_npy_free(pte_npy_array *a);

/* Encodes a C-order tensor as a .npy image (heap, *out_len bytes; free with free()).
 * Returns NULL with a message on an unsupported dtype or bad shape. */
void *pte_npy_encode(int dtype, const int32_t *sizes, int32_t dim, const void *data, size_t *out_len, char *err,
                     size_t err_size);

/* pte_npy_encode + write to `path`. */
/* Writes len bytes to path atomically (temp file + rename). 0, or -1 with err. */
int pte_cli_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errsz);

int pte_npy_save(const char *path, int dtype, const int32_t *sizes, int32_t dim, const void *data, char *err,
                 size_t err_size);

/* Copies a tensor between two strided layouts (strides in elements, es bytes per element):
 * dst[idx . dst_strides] = src[idx . src_strides] for every index of `sizes`. */
void pte_npy_copy_strided(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                          const int32_t *sizes, int32_t dim, size_t es);

/* bfloat16 / float16 <-> float32 conversions (round to nearest even on narrowing). */
float pte_npy_bf16_to_f32(uint16_t v);
uint16_t pte_npy_f32_to_bf16(float f);
float pte_npy_f16_to_f32(uint16_t v);
uint16_t pte_npy_f32_to_f16(float f);

#endif
