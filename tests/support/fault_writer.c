/* fault_writer.c — a pte_data_writer that fails on purpose at the N-th operation (test support). */
#include <string.h>

#include "fault_writer.h"

static pte_status fault(pte_fault_writer *w, const char *op, pte_error_info *err) {
  w->ops++;
  if (w->fail_at && w->ops == w->fail_at) {
    w->failed_op = op;
    return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "injected failure at operation %llu (%s)",
                         (unsigned long long)w->ops, op);
  }
  return PTE_OK;
}

static pte_status fw_write(pte_data_writer *self, const void *data, size_t size, uint64_t offset, pte_error_info *err) {
  pte_fault_writer *w = (pte_fault_writer *)self;
  w->writes++;
  pte_status s = fault(w, "write", err);
  return s != PTE_OK ? s : pte_data_writer_write(w->inner, data, size, offset, err);
}

static pte_status fw_set_size(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  pte_fault_writer *w = (pte_fault_writer *)self;
  if (!w->inner || !w->inner->vt || !w->inner->vt->set_size)
    return pte_error_set(err, PTE_ERR_NOT_SUPPORTED, "data writer: set_size not supported");
  w->set_sizes++;
  pte_status s = fault(w, "set_size", err);
  return s != PTE_OK ? s : pte_data_writer_set_size(w->inner, size, err);
}

static pte_status fw_reserve(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  pte_fault_writer *w = (pte_fault_writer *)self;
  w->reserves++;
  pte_status s = fault(w, "reserve", err);
  return s != PTE_OK ? s : pte_data_writer_reserve(w->inner, size, err);
}

static pte_status fw_publish(pte_data_writer *self, pte_error_info *err) {
  pte_fault_writer *w = (pte_fault_writer *)self;
  w->publishes++;
  pte_status s = fault(w, "publish", err);
  if (s != PTE_OK) return s;
  if (w->before_publish) w->before_publish(w->before_publish_ctx);
  return pte_data_writer_publish(w->inner, err);
}

static void fw_destroy(pte_data_writer *self) {
  pte_fault_writer *w = (pte_fault_writer *)self;
  pte_data_writer_destroy(w->inner);
}

static const pte_data_writer_vtable k_fault_vt = {
    .write = fw_write, .set_size = fw_set_size, .reserve = fw_reserve, .publish = fw_publish, .destroy = fw_destroy};

void pte_fault_writer_init(pte_fault_writer *w, pte_data_writer *inner, uint64_t fail_at) {
  if (!w) return;
  memset(w, 0, sizeof *w);
  w->base.vt = &k_fault_vt;
  w->inner = inner;
  w->fail_at = fail_at;
}
