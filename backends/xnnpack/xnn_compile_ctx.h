/* The compile context shared by blob parsing (xnn_parse.c, xnn_parse_nodes.c) and the delegate
 * init (xnn_compile.c). Private to those files. */
#ifndef PTE_XNN_COMPILE_CTX_H
#define PTE_XNN_COMPILE_CTX_H

#include "format/flatbuf.h"
#include "xnn_internal.h"

typedef struct cslot {
  bool loaded;
  const uint8_t *p;
  size_t size;
  int buf; /* index into tmp buffers, -1 if not a loaded buffer */
  bool prepared; /* p/size: packed weights from `pte prepare` (envelope payload or XPB1 entry) */
  bool foreign;  /* ... made for another ISA / tile (accepted with repack_prepared) */
  bool in_blob;  /* ... inside the processed blob */
  bool deferred; /* ... a named envelope the XPB1 table vouches for, not read at init */
} cslot;

typedef struct idmap_entry {
  uint32_t id, idx;
} idmap_entry;

typedef struct cctx {
  pte_xnn_delegate *d;
  const uint8_t *fb;
  size_t fb_size;
  pte_fb_table root;
  bool has_header;
  const uint8_t *cdata;
  uint64_t csize;
  const pte_xnn_xpb *xpb; /* prepared inline blob: constants come from its table */
  bool xpb_foreign;
  const pte_named_data_map *ndm;
  pte_error_info *err;
  cslot *slots;
  size_t n_slots;
  pte_freeable_buffer *tmp;
  size_t n_tmp, cap_tmp;
  idmap_entry *ids;
  size_t n_ids;
} cctx;

#define CERR(c, st, ...) pte_error_set((c)->err, (st), __VA_ARGS__)

/* grows *arr (elements of `elem` bytes, new ones zeroed) to hold `need`; false when out of memory */
bool pte_xnn_grow(void **arr, size_t *cap, size_t need, size_t elem);
/* pte_xnn_grow without clearing the new capacity (for arrays whose elements are initialised as
 * they are added: values, nodes). */
bool pte_xnn_reserve(void **arr, size_t *cap, size_t need, size_t elem);
void pte_xnn_cc_release(cctx *c);
bool pte_xnn_cc_own(pte_xnn_delegate *d, uint8_t *p);
bool pte_xnn_cc_lookup_id(const cctx *c, uint32_t id, uint32_t *idx);
pte_xnn_node *pte_xnn_cc_new_node(pte_xnn_delegate *d);
/* xnn_parse.c: values and the id map */
pte_status pte_xnn_cc_parse_value(cctx *c, uint32_t vi, pte_fb_table xv, uint32_t *n_legacy_dq);
pte_status pte_xnn_cc_expand_legacy_dq(cctx *c, pte_fb_vec xvalues);
pte_status pte_xnn_cc_build_idmap(cctx *c);
/* xnn_parse_nodes.c: nodes, topology and lifetimes, the external argument lists */
pte_status pte_xnn_cc_parse_node(cctx *c, size_t ni, pte_fb_table xn);
pte_status pte_xnn_cc_check_graph(cctx *c);
pte_status pte_xnn_cc_collect_externals(cctx *c);

#endif
