/* Token sampling for the LLM runner (include/pte/llm.h): argmax, temperature, top-p. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pte/llm.h"

void pte_llm_sampler_init(pte_llm_sampler *s, float temperature, float top_p, uint64_t seed) {
  memset(s, 0, sizeof *s);
  s->temperature = temperature;
  s->top_p = top_p;
  /* splitmix64 of the seed: a nonzero xorshift state for every seed */
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  s->state = z ? z : 1;
}

void pte_llm_sampler_free(pte_llm_sampler *s) {
  if (!s) return;
  free(s->probs);
  free(s->pairs);
  s->probs = NULL;
  s->pairs = NULL;
  s->cap = 0;
}

/* uniform in [0, 1) from xorshift64* */
static double smp_uniform(pte_llm_sampler *s) {
  uint64_t x = s->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  s->state = x;
  return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

typedef struct smp_pair {
  float p;
  int32_t id;
} smp_pair;

/* descending probability, ascending id on ties */
static int smp_cmp(const void *a, const void *b) {
  const smp_pair *x = (const smp_pair *)a, *y = (const smp_pair *)b;
  if (x->p != y->p) return x->p > y->p ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

int64_t pte_llm_sample(pte_llm_sampler *s, const float *logits, size_t n) {
  if (!s || !logits || n == 0) return -1;
  if (!(s->temperature > 0)) {
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
      if (logits[i] > logits[best] || (logits[best] != logits[best] && logits[i] == logits[i])) best = i;
    return (int64_t)best;
  }
  if (s->cap < n) {
    float *p = (float *)realloc(s->probs, n * sizeof(float));
    if (!p) return -1;
    s->probs = p;
    void *o = realloc(s->pairs, n * sizeof(smp_pair));
    if (!o) return -1;
    s->pairs = o;
    s->cap = n;
  }
  float mx = logits[0];
  for (size_t i = 1; i < n; i++)
    if (logits[i] > mx) mx = logits[i];
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    s->probs[i] = (float)exp(((double)logits[i] - mx) / s->temperature);
    sum += s->probs[i];
  }
  for (size_t i = 0; i < n; i++) s->probs[i] = (float)(s->probs[i] / sum);
  double r = smp_uniform(s);
  if (s->top_p <= 0 || s->top_p >= 1) {
    double c = 0;
    for (size_t i = 0; i < n; i++) {
      c += s->probs[i];
      if (r < c) return (int64_t)i;
    }
    return (int64_t)(n - 1);
  }
  smp_pair *pr = (smp_pair *)s->pairs;
  for (size_t i = 0; i < n; i++) pr[i].p = s->probs[i], pr[i].id = (int32_t)i;
  qsort(pr, n, sizeof *pr, smp_cmp);
  double mass = 0;
  size_t k = 0;
  while (k < n) {
    mass += pr[k++].p;
    if (mass >= s->top_p) break;
  }
  double target = r * mass, c = 0;
  for (size_t i = 0; i < k; i++) {
    c += pr[i].p;
    if (target < c) return pr[i].id;
  }
  return pr[k - 1].id;
}
