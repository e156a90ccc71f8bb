/* xnnpack_lib_internal.h — shared between xnnpack_lib.c (translation, runner) and
 * xnnpack_lib_graph.c (what the library can run, constants). Test/bench-only code. */
#ifndef PTE_TESTS_XNNPACK_LIB_INTERNAL_H
#define PTE_TESTS_XNNPACK_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../backends/xnnpack/xnn_internal.h"
#include "xnnpack_lib.h"

/* snprintf into err / append to it (both bounded by cap) */
void pxl_msg(char *err, size_t cap, const char *fmt, ...);
void pxl_append(char *err, size_t cap, const char *fmt, ...);

/* Datatypes and node kinds the library runs; data-movement kinds run on the host instead. */
bool pxl_dtype_ok(unsigned dt);
bool pxl_is_lib_node(unsigned type);
bool pxl_is_host_node(unsigned type);

/* Non-zero (message "library lacks: ..." naming every datatype / node kind, with ids) when the
 * graph holds something neither the library nor the host copies can run. */
int pxl_check_graph(const pte_xnn_delegate *d, char *err, size_t cap);

/* The bytes of constant v (an aligned heap copy in *out, free()), read again from the blob's
 * constant region, constant_buffer or named data. Non-zero with a message on failure. */
int pxl_constant(const pte_xnn_value *v, const uint8_t *blob, size_t size, const pte_named_data_map *ndm, uint8_t **out,
                 char *err, size_t cap);

#endif
