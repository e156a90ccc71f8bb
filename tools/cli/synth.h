/* tools/cli/synth.h — internal to `pte synth`: the generator and builder state shared by
 * cmd_synth.c (generator, portable models, command line) and synth_xnn.c (the XNNPACK-delegated
 * models). */
#ifndef PTE_CLI_SYNTH_H
#define PTE_CLI_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "progress.h"
#include "pte/backend_xnnpack.h"
#include "pte/writer.h"
#include "synth_gen.h"

#define HASH_BUF_SIZE ((size_t)1 << 20)



/* A generated constant as a delegate stores it: a permutation of the generator's (portable)
 * layout. Stored element s (row-major over sdims) is generator element sum_j s[j] * gstride[j]. */
typedef struct xgen {
  pte_cli_gen g;
  uint32_t rank;
  uint32_t sdims[4];
  uint64_t gstride[4]; /* generator stride of each stored axis */
  bool identity;
} xgen;

typedef struct synth {
  pte_writer *w;
  uint32_t m, chain;
  uint64_t seed;
  uint32_t next_tensor_id;
  pte_cli_gen *gens; /* one per generated tensor (must outlive the write) */
  size_t n_gens, cap_gens;
  pte_error_info err;
  uint32_t op_addmm, op_relu, op_conv, op_pool, op_view;
  /* --delegate xnnpack */
  xgen *xgens;                /* generated delegate constants (must outlive the write) */
  size_t n_xgens, cap_xgens;
  uint8_t *hash_buf;          /* the one bounded buffer weights are hashed through */
  pte_cli_progress *progress; /* hashing phase */
  uint64_t hashed, to_hash;   /* bytes hashed so far / in all */
  char (*keys)[65];           /* named-data keys added so far (cap_xgens) */
  size_t n_keys;
  uint64_t named_bytes;       /* bytes of named data */
  pte_xnn_blob blob;          /* the delegate's processed bytes */
  size_t n_delegates, n_calls;
} synth;

/* cmd_synth.c */
pte_status synth_act(synth *S, const int32_t *sizes, size_t dim, int32_t *v);
pte_status synth_int_value(synth *S, int64_t x, int32_t *v);

/* synth_xnn.c */
pte_status synth_xnn_mlp_graph(synth *S, pte_xnn_builder *b, const int32_t *widths, size_t n, int32_t batch);
pte_status synth_xnn_cnn_graph(synth *S, pte_xnn_builder *b, const int32_t *ch, size_t n, int32_t image,
                               int32_t classes, int32_t batch);
pte_status synth_build_delegated(synth *S, pte_xnn_builder *b, const int32_t *in_sz, size_t in_dim,
                                 const int32_t *out_sz, size_t out_dim);
pte_status synth_build_denoise(synth *S, pte_xnn_builder *b, int32_t width, int32_t batch, uint32_t steps,
                               bool share);

#endif
