/*
 * mtc/landmark.h - landmark sequences (draft sections "Landmark Tree
 * Sizes", "Allocating Landmarks", "Publishing Landmarks", "Constructing
 * Landmark-Relative Certificates").
 *
 * Landmark 0 has tree size 0; sizes are strictly increasing. The most
 * recent max_active landmarks are active; each landmark L > 0 determines
 * the (at most two) subtrees covering [size(L-1), size(L)). A sequence
 * keeps only the sizes from the oldest active landmark's predecessor on
 * (max_active + 1 sizes at most), so its memory is bounded whatever the
 * simulated time span.
 */
#ifndef MTC_LANDMARK_H
#define MTC_LANDMARK_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/merkle.h"

typedef struct mtc_landmarks mtc_landmarks;

/* ceil(max_cert_lifetime / time_between_landmarks) + 1 (same time unit;
 * both positive). Returns 0 for invalid arguments. */
uint64_t mtc_max_active_landmarks(uint64_t max_cert_lifetime,
                                  uint64_t time_between_landmarks);

/* A sequence holding only landmark 0. NULL on allocation failure or
 * max_active == 0. */
mtc_landmarks *mtc_landmarks_new(uint64_t max_active);
void mtc_landmarks_free(mtc_landmarks *lm); /* NULL allowed */

uint64_t mtc_landmarks_max_active(const mtc_landmarks *lm);
/* Number of the last landmark. */
uint64_t mtc_landmarks_last(const mtc_landmarks *lm);
/* The num_active_landmarks of the text format: min(max_active, last) for
 * a sequence built by appending; as published for a parsed one. */
uint64_t mtc_landmarks_num_active(const mtc_landmarks *lm);
/* Oldest landmark number whose size is kept (last - num_active). */
uint64_t mtc_landmarks_first_kept(const mtc_landmarks *lm);

/* Tree size of landmark L; MTC_ERR_RANGE when L is newer than the last or
 * older than first_kept. */
int mtc_landmarks_size(const mtc_landmarks *lm, uint64_t landmark,
                       uint64_t *size);

/* Appends a landmark. MTC_ERR_LANDMARK unless tree_size > the last size;
 * MTC_ERR_NOMEM. */
int mtc_landmarks_append(mtc_landmarks *lm, uint64_t tree_size);

/*
 * The recommended allocation procedure: called with the current time
 * interval number (time / time_between_landmarks) and the latest
 * checkpoint's tree size; appends at most once per interval, and only when
 * the size grew. *allocated (may be NULL) says whether it did. Intervals
 * must not go backwards (MTC_ERR_ARG).
 */
int mtc_landmarks_allocate(mtc_landmarks *lm, uint64_t interval,
                           uint64_t checkpoint_size, int *allocated);

/* Landmark L's subtrees (L >= 1, sizes kept): right is empty
 * (start == end) when one subtree covers the interval. */
int mtc_landmarks_subtrees(const mtc_landmarks *lm, uint64_t landmark,
                           mtc_subtree *left, mtc_subtree *right);

/*
 * For a landmark-relative certificate of entry `index`: the smallest
 * active landmark whose size exceeds index, and the one of its subtrees
 * that contains index. MTC_ERR_RANGE when no landmark covers the entry yet
 * (wait for one), MTC_ERR_LANDMARK when the covering landmarks are no
 * longer active (abort).
 */
int mtc_landmarks_for_index(const mtc_landmarks *lm, uint64_t index,
                            uint64_t *landmark, mtc_subtree *subtree);

/*
 * The active landmark one of whose subtrees is exactly [start, end): how
 * a landmark-relative certificate's MTCProof names its landmark, hence its
 * trust anchor ID (mtc_taid_landmark_id). MTC_ERR_RANGE when no active
 * landmark has that subtree.
 */
int mtc_landmarks_find_subtree(const mtc_landmarks *lm, uint64_t start,
                               uint64_t end, uint64_t *landmark);

/*
 * TLS selection (draft "Single-Log Landmark Groups"): 1 when the landmark
 * group of landmark `group` (ID ca.2.N.group) contains landmark
 * `landmark` of the same log, i.e. group - max_active + 1 <= landmark <=
 * group. (The group also contains the CA ID itself, i.e. standalone
 * certificates.) Landmark 0 has no subtrees and is never contained.
 */
int mtc_landmark_group_contains(uint64_t group, uint64_t max_active,
                                uint64_t landmark);

/*
 * The publishing text format: "<last> <num_active>\n" then num_active + 1
 * lines with the sizes of landmarks last, last-1, ..., last-num_active.
 * Writes at most cap bytes; *out_len gets the full length (MTC_ERR_LIMIT
 * when cap is short).
 */
int mtc_landmarks_format(const mtc_landmarks *lm, char *out, size_t cap,
                         size_t *out_len);

/*
 * Strict parser of the text format for a CA with the given max_active and
 * latest tree size. Every line ends in '\n'; numbers are plain decimal
 * (no sign, no leading zeros, no spaces other than the one separator, at
 * most 2^64-1); num_active <= max_active and <= last; exactly
 * num_active + 1 sizes follow, strictly decreasing, each <= latest size,
 * and landmark 0, when listed, has size 0. max_active 0 reads the text
 * as published, for a reader that does not know the CA's parameter (a
 * relying party): max_active is then num_active. On error *err_line (may
 * be NULL) gets the 1-based line number at fault and MTC_ERR_LANDMARK
 * (rule violated) or MTC_ERR_PARSE (syntax) is returned; *out is owned by
 * the caller on success.
 */
int mtc_landmarks_parse(const char *text, size_t len, uint64_t max_active,
                        uint64_t latest_tree_size, mtc_landmarks **out,
                        size_t *err_line);

#endif
