#define _GNU_SOURCE 1 /* copy_file_range (Linux); the fast path is optional */
/* file.c — pte_prepare_file: prepare a file into another (or the same) path through the file
 * writer, with stale temp-file cleanup under the destination's lock. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "pte/io.h"
#include "pte/prepare.h"

static bool all_digits(const char *s, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

/* ".pte-spool.<pid>.XXXXXX" of a process that no longer exists */
static bool is_dead_spool(const char *name) {
  static const char pre[] = ".pte-spool.";
  if (strncmp(name, pre, sizeof pre - 1) != 0) return false;
  const char *p = name + sizeof pre - 1;
  const char *dot = strchr(p, '.');
  if (!dot || !all_digits(p, (size_t)(dot - p))) return false;
  long pid = strtol(p, NULL, 10);
  if (pid <= 0) return false;
  return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

size_t pte_prepare_remove_stale_temps(const char *dest_path, const char *keep) {
  if (!dest_path || !*dest_path) return 0;
  size_t removed = pte_file_writer_remove_stale_temps(dest_path, keep, true);
  /* spool files of dead prepares in the destination's directory */
  const char *slash = strrchr(dest_path, '/');
  size_t dl = slash ? (size_t)(slash - dest_path) : 0;
  char *dir = (char *)malloc(dl + 2);
  if (!dir) return removed;
  if (slash) {
    memcpy(dir, dest_path, dl ? dl : 1);
    dir[dl ? dl : 1] = 0;
  } else {
    memcpy(dir, ".", 2);
  }
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (!is_dead_spool(e->d_name)) continue;
      size_t n = strlen(dir) + strlen(e->d_name) + 2;
      char *p = (char *)malloc(n);
      if (!p) break;
      snprintf(p, n, "%s/%s", dir, e->d_name);
      if (unlink(p) == 0) removed++;
      free(p);
    }
    closedir(d);
  }
  free(dir);
  return removed;
}

/* The output as the coordinator sees it: the file writer, plus early writeback. Without it every
 * byte of a durable prepare stays dirty in the page cache until the final fsync (a 2 GiB output is
 * below the usual background-writeback threshold), so the whole disk write comes after the copy.
 * Asking for writeback of each FO_KICK bytes just written overlaps the two; fsync at publish
 * still waits for everything and reports the errors (the kick is only a hint). */
#define FO_KICK ((uint64_t)16 << 20)

typedef struct file_out {
  pte_data_writer base;
  pte_file_writer *fw;
  bool kick;          /* durable output (fsync at publish) on Linux */
  uint64_t lo, hi;    /* range written since the last kick (lo == hi: none) */
} file_out;

static void fo_written(file_out *o, uint64_t off, uint64_t n) {
  if (!o->kick || n == 0) return;
  if (o->lo == o->hi) {
    o->lo = off;
    o->hi = off + n;
  } else {
    if (off < o->lo) o->lo = off;
    if (off + n > o->hi) o->hi = off + n;
  }
  if (o->hi - o->lo < FO_KICK) return;
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
  if (o->fw->fd >= 0) (void)sync_file_range(o->fw->fd, (off_t)o->lo, (off_t)(o->hi - o->lo), SYNC_FILE_RANGE_WRITE);
#endif
  o->lo = o->hi = 0;
}

static pte_status fo_write(pte_data_writer *self, const void *data, size_t size, uint64_t offset, pte_error_info *err) {
  file_out *o = (file_out *)self;
  pte_status s = pte_data_writer_write(&o->fw->base, data, size, offset, err);
  if (s == PTE_OK) fo_written(o, offset, size);
  return s;
}

static pte_status fo_set_size(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  return pte_data_writer_set_size(&((file_out *)self)->fw->base, size, err);
}

static pte_status fo_reserve(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  return pte_data_writer_reserve(&((file_out *)self)->fw->base, size, err);
}

static pte_status fo_publish(pte_data_writer *self, pte_error_info *err) {
  return pte_data_writer_publish(&((file_out *)self)->fw->base, err);
}

static void fo_destroy(pte_data_writer *self) { (void)self; /* the file writer is destroyed by its owner */ }

static const pte_data_writer_vtable k_fo_vt = {
    .write = fo_write, .set_size = fo_set_size, .publish = fo_publish, .destroy = fo_destroy, .reserve = fo_reserve};

/* copy_fd for the file writer: in-kernel copy into its temp file. */
static pte_status file_copy_fd(void *ctx, int src_fd, uint64_t src_off, uint64_t dst_off, uint64_t n,
                               pte_error_info *err) {
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 27))
  file_out *o = (file_out *)ctx;
  pte_file_writer *fw = o->fw;
  if (fw->fd < 0 || src_fd < 0) return PTE_ERR_NOT_SUPPORTED;
  bool first = true;
  while (n > 0) {
    loff_t in = (loff_t)src_off, out = (loff_t)dst_off;
    size_t chunk = n > FO_KICK ? (size_t)FO_KICK : (size_t)n;
    ssize_t r = copy_file_range(src_fd, &in, fw->fd, &out, chunk, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && first && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL))
      return PTE_ERR_NOT_SUPPORTED;
    if (r <= 0)
      return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "prepare: cannot copy into '%s': %s", fw->temp,
                           r < 0 ? strerror(errno) : "unexpected end of input");
    first = false;
    fo_written(o, dst_off, (uint64_t)r);
    src_off += (uint64_t)r;
    dst_off += (uint64_t)r;
    n -= (uint64_t)r;
  }
  if (dst_off > fw->size) fw->size = dst_off;
  return PTE_OK;
#else
  (void)ctx, (void)src_fd, (void)src_off, (void)dst_off, (void)n, (void)err;
  return PTE_ERR_NOT_SUPPORTED;
#endif
}

/* read_back for the file writer: pread of its temp file (opened again for reading: the writer's
 * own descriptor is write-only). */
typedef struct file_rb {
  pte_file_writer *fw;
  int fd;
} file_rb;

static pte_status file_read_back(void *ctx, uint64_t off, void *dst, size_t n, pte_error_info *err) {
  file_rb *rb = (file_rb *)ctx;
  pte_file_writer *fw = rb->fw;
  if (rb->fd < 0) {
    rb->fd = fw->temp ? open(fw->temp, O_RDONLY | O_CLOEXEC) : -1;
    if (rb->fd < 0)
      return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "prepare: cannot read back '%s': %s",
                           fw->temp ? fw->temp : "?", strerror(errno));
  }
  uint8_t *p = (uint8_t *)dst;
  while (n > 0) {
    ssize_t r = pread(rb->fd, p, n, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "prepare: cannot read back '%s': %s", fw->temp,
                           r < 0 ? strerror(errno) : "unexpected end of file");
    p += r;
    off += (uint64_t)r;
    n -= (size_t)r;
  }
  return PTE_OK;
}

pte_status pte_prepare_file(const char *in_path, const char *out_path, const pte_prepare_file_options *opt_in,
                            pte_prepare_report *report, pte_error_info *err) {
  pte_error_info local;
  if (!err) err = &local;
  if (report) memset(report, 0, sizeof *report);
  if (!in_path || !out_path) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "prepare: NULL path");
  pte_prepare_file_options opt;
  if (opt_in) {
    opt = *opt_in;
  } else {
    memset(&opt, 0, sizeof opt);
    pte_file_writer_options_init(&opt.file);
  }
  if (opt.file.mode == 0 && !opt.file.replace_existing && opt.file.lock == PTE_FILE_LOCK_FAIL_FAST && !opt.file.no_fsync)
    pte_file_writer_options_init(&opt.file); /* an all-zero struct means the defaults */

  pte_mmap_loader ml;
  pte_file_loader fl;
  pte_file_writer fw;
  memset(&fw, 0, sizeof fw);
  file_out fo = {{&k_fo_vt}, &fw, !opt.file.no_fsync, 0, 0};
  file_rb rb = {&fw, -1};
  fl.fd = -1;
  pte_status s = pte_mmap_loader_open_ex(&ml, in_path, PTE_MLOCK_NONE, PTE_MMAP_PER_LOAD, err);
  if (s != PTE_OK) return s;
  s = pte_file_loader_open(&fl, in_path, 0, err);
  if (s != PTE_OK) {
    pte_mmap_loader_close(&ml);
    return s;
  }
  char *dir = NULL;
  uint8_t *temp_mem = NULL;
  s = pte_file_writer_open(&fw, out_path, &opt.file, err);
  if (s == PTE_OK) {
    if (opt.file.lock != PTE_FILE_LOCK_NONE) pte_prepare_remove_stale_temps(out_path, fw.temp);
    if (!opt.prepare.spool_dir) {
      const char *slash = strrchr(out_path, '/');
      size_t dl = slash ? (size_t)(slash - out_path) : 0;
      dir = (char *)malloc(dl + 2);
      if (!dir) {
        s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "prepare: out of memory");
      } else if (!slash) {
        memcpy(dir, ".", 2);
      } else {
        memcpy(dir, out_path, dl ? dl : 1);
        dir[dl ? dl : 1] = 0;
      }
      opt.prepare.spool_dir = dir;
    }
    if (!opt.prepare.copy_loader) {
      opt.prepare.copy_loader = &fl.base;
      if (!opt.prepare.copy_fd) {
        opt.prepare.copy_fd = file_copy_fd;
        opt.prepare.copy_fd_ctx = &fo;
        opt.prepare.input_fd = fl.fd;
      }
      if (!opt.prepare.read_back) {
        opt.prepare.read_back = file_read_back;
        opt.prepare.read_back_ctx = &rb;
      }
    }
  }
  size_t temp_size = opt.temp_allocator_size ? opt.temp_allocator_size : ((size_t)64 << 20);
  pte_allocator temp;
  if (s == PTE_OK) {
    temp_mem = (uint8_t *)malloc(temp_size); /* untouched pages cost nothing */
    if (!temp_mem) s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "prepare: cannot reserve %zu bytes", temp_size);
    else pte_allocator_init(&temp, temp_mem, temp_size);
  }
  if (s == PTE_OK)
    s = pte_initialize_and_save_backend_data_ex(&ml.base, &fo.base, &temp, opt.tracer, &opt.prepare, report, err);
  if (rb.fd >= 0) close(rb.fd);
  pte_data_writer_destroy(&fw.base); /* discards the temp file unless published */
  free(temp_mem);
  free(dir);
  pte_file_loader_close(&fl);
  pte_mmap_loader_close(&ml);
  return s;
}
