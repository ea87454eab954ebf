/*
 * C boundary between hypre (C) and the AMGT plugin (C++/CUDA).
 *
 * hypre's side (amgt_hypre.c, compiled into libHYPRE) turns hypre's structs into the plain
 * views below and calls these functions; the plugin side (glue.cpp) never sees a hypre
 * type and never calls hypre, so the plugin library links and tests on its own.
 *
 * Contract of every function here: it never throws, never aborts and never exits -- with
 * one exception the user opts into: under AMGT_STRICT=1, an invalid AMGT_* value or an
 * unknown AMGT_* variable makes the first call that reads the configuration print why and
 * end the process with exit status 2. A product function returns 1 when it computed the
 * result, 0 when the caller must run hypre's own code (plugin off, unsupported case, or an
 * error -- reported once and counted as a fallback in the statistics).
 */
#ifndef AMGT_GLUE_H
#define AMGT_GLUE_H

#include <stddef.h>

#include "common/setup_kernels.h" /* the setup kernels' arguments */

#ifdef __cplusplus
extern "C" {
#endif

/* A CSR matrix as hypre holds it: 0-based, columns unsorted within a row, no duplicates;
 * val == NULL means all values are 1. All arrays live on the host or all on the device. */
typedef struct amgt_csr
{
   int           nrows;
   int           ncols;
   int           nnz;
   const int    *row_ptr;
   const int    *col;
   const double *val;
   int           on_device;
   void         *owner; /* the hypre_CSRMatrix these arrays belong to (opaque), or NULL */
} amgt_csr;

/* Output of a product. The arrays are allocated with the allocator set below, in the
 * memory of the inputs, so hypre can free them with its own hypre_TFree. */
typedef struct amgt_csr_out
{
   int     nnz;
   int    *row_ptr;
   int    *col;
   double *val;
} amgt_csr_out;

/* hypre's allocator (pools, Umpire and async allocators stay in charge of device memory).
 * alloc returns NULL on failure. compute_stream (NULL in CPU builds) returns hypre's compute
 * stream (the vendor's stream type, amgt::device::Stream): every kernel the plugin enqueues for hypre goes there. */
typedef struct amgt_allocator
{
   void *(*alloc)(size_t bytes, int on_device);
   void  (*release)(void *ptr, int on_device);
   void *(*compute_stream)(void);
   /* y = A*x with hypre's own kernel (the plugin bypassed), A the owner of an amgt_csr;
    * returns 1 on success. Lets the plugin time both sides on the real matrix. May be NULL. */
   int (*stock_spmv)(void *owner, const double *x, double *y);
   /* 1 when alloc/release are served by hypre's device memory pool (HYPRE_USING_DEVICE_POOL):
    * the plugin then keeps no block cache of its own (AMGT_DEVICE_CACHE defaults to 0). */
   int pooled;
} amgt_allocator;

/* Matrices with fewer entries than this are latency-bound on the GPU: both SpMV kernels
 * take 5-7 us per call there (H100), so the plugin leaves them to hypre without converting
 * them (AMGT_SPMV=auto, planner.cpp too_small_for_plugin), and hypre runs them on its own kernel rather
 * than cuSPARSE's 11-16 us (the stock-kernel rule, amgt_hypre.c). */
#define AMGT_SMALL_MATRIX_ENTRIES (1 << 18)
/* Matvecs hypre runs for the plugin (hypre_AMGTStockMatvecUseVendor): on cuSPARSE from this
 * many entries, on hypre's own kernel below (the cost model leaves matrices of up to a few
 * million entries to hypre; there hypre's own kernel is what stock hypre runs with
 * -mv_vendor 0, and the faster of the two at the sizes measured). */
#define AMGT_VENDOR_SPMV_ENTRIES (1 << 22)

/* hypre's side (amgt_hypre.c) only compares the mode with AMGT_MODE_OFF. */
enum
{
   AMGT_MODE_OFF   = 0,
   AMGT_MODE_FP64  = 1,
   AMGT_MODE_MIXED = 2,
   AMGT_MODE_AUTO  = 3 /* guarded per-matrix choice, the schedule as floor */
};

enum
{
   AMGT_ROLE_NONE = 0, /* untagged (temporaries, user products) */
   AMGT_ROLE_A    = 1, /* operator of a level */
   AMGT_ROLE_P    = 2, /* interpolation (or its stored transpose) */
   AMGT_ROLE_R    = 3  /* restriction (or its stored transpose) */
};

/* Process-wide selection, read from the AMGT* environment variables once (thread-safe);
 * messages about invalid values and unknown variables are printed once, at that first call
 * (with AMGT_STRICT=1 and any of them, that call exits with status 2). */
int  amgt_glue_mode(void);
int  amgt_glue_stats_enabled(void);
void amgt_glue_set_allocator(const amgt_allocator *allocator);

/* Per-matrix plugin state, owned through hypre's hypre_CSRMatrix.amgt_data pointer. */
void amgt_glue_matrix_release(void *state);
/* The matrix's values changed in place: forget its cached conversions and kernel choices
 * (the level tag stays). The next product converts again. */
void amgt_glue_matrix_invalidate(void *state);
void amgt_glue_matrix_tag(void **state_slot, int level, int role);

/* Marks a tagged matrix as the off-diagonal block of a ParCSR matrix (its columns are other
 * ranks' unknowns): AMGT_STATS counts its matvecs apart, on the plugin and left to hypre. */
void amgt_glue_matrix_mark_offd(void **state_slot);

/* Called for each tagged matrix at the end of BoomerAMG's setup: a device matrix is
 * converted to mBSR and its SpMV plan is built now, so that the solve loop finds them
 * ready (no conversion, allocation or synchronisation inside the solve). Never fails:
 * an error leaves the matrix to be converted at its first product, or to stock hypre. */
void amgt_glue_matrix_prepare(void **state_slot, const amgt_csr *A);
/* The end of BoomerAMG's setup, before amgt_glue_matrix_prepare is called for each of them:
 * the n matrices about to be prepared (their slots, arrays, levels and roles). On the GPU the
 * plugin measures what their preparation needs of every one of them at once (auto's value
 * statistics, the layout's fill samples) with one read-back instead of one or two a matrix
 * (AMGT_SETUP_SURVEY). Tags them as amgt_glue_matrix_tag does (an item with a null slot is
 * skipped). Never fails: what it could not measure is measured matrix by matrix. */
typedef struct
{
   void   **slot;
   amgt_csr A;
   int      level;
   int      role;
} amgt_survey_item;
void amgt_glue_matrices_survey(int n, const amgt_survey_item *items);
/* The same, for a matrix of a level whose setup is finished while hypre's setup goes on
 * (the next level is being built), called under AMGT_SETUP_OVERLAP=1 only
 * (amgt_glue_setup_overlap): the work is queued to the plugin's second thread and stream
 * (prepare_queue.h) and this returns at once; the matrix is then not prepared again at the
 * end of the setup. Never fails. */
void amgt_glue_matrix_prepare_beside(void **state_slot, const amgt_csr *A);
/* 1 under AMGT_SETUP_OVERLAP=1: finished levels are prepared beside the setup. */
int amgt_glue_setup_overlap(void);
/* HYPRE_Initialize: under an AMGT mode on the GPU, starts loading the plugin's kernels on a
 * second thread (AMGT_PRELOAD). Never fails. */
void amgt_glue_initialize(void);
/* An application's matrix was assembled (HYPRE_IJMatrixAssemble, SetConstantValues) with
 * local_entries entries on this process: the first one decides whether the preload goes on
 * (hypre_glue/preload_rule.h). Never fails. */
void amgt_glue_matrix_assembled(long long local_entries);
/* Waits for everything queued by amgt_glue_matrix_prepare_beside (the end of a setup). */
void amgt_glue_prepare_settle(void);

/* Setup bookkeeping: a new epoch invalidates every cached conversion; the setup level is
 * the hint used for products issued inside BoomerAMG's coarsening loop (-1 outside). */
void amgt_glue_setup_begin(void);
void amgt_glue_set_setup_level(int level);

/* A BoomerAMG V-cycle starts (index: its number within the solve call, 0 first) or ends.
 * Inside a cycle a matrix's matvec runs in its level's precision (the schedule, or auto's
 * choice), except the finest level's operator from the second cycle of a solve on; outside
 * (Krylov matvecs, the solver's residual check) a matrix stored below fp64 is handed to
 * hypre. So a Krylov method preconditioned by BoomerAMG keeps fp64 matvecs, and BoomerAMG
 * as a solver converges to the fp64 operator's solution: the fixed point of a stationary
 * iteration is that of the operator its residuals use. */
void amgt_glue_cycle_begin(int index);
void amgt_glue_cycle_end(void);

/* y = alpha*A*x + beta*y. x has A->ncols entries and y A->nrows entries (hypre's work
 * vectors may be longer: the tail is never touched). */
int amgt_glue_spmv(void **state_slot, const amgt_csr *A, double alpha, const double *x,
                   double beta, double *y);
/* y = alpha*A*x + beta*b, hypre's out-of-place product: b (A->nrows entries, in A's memory,
 * may be y or x) is read where it is, so hypre's copy b -> y is not made. Returns 0
 * with y untouched when hypre is to compute it. */
int amgt_glue_spmv_b(void **state_slot, const amgt_csr *A, double alpha, const double *x,
                     double beta, const double *b, double *y);

/* One l1-Jacobi sweep of BoomerAMG's smoother from u = 0 (plugin/smooth/jacobi.h) on n
 * entries in host or device memory (on_device); slot: the state of the sweep's matrix
 * (A's diagonal block), which an error is reported under. vtemp = w*f, u = vtemp ./ l1.
 * Returns 1 when computed, 0 to let hypre sweep. */
int amgt_glue_jacobi_from_zero(void **state_slot, long n, double w, const double *f,
                               const double *l1, double *u, double *vtemp, int on_device);
/* Counts a sweep whose f - A*u hypre computed as an out-of-place product at the glue's
 * request (AMGT_STATS). */
void amgt_glue_count_sweep(void);

/* Extended+i interpolation's F-F weights (plugin/interp/twiaff.h) on device arrays, in place of
 * hypre's hypreGPUKernel_compute_twiaff_w, on hypre's compute stream. Returns 1 when enqueued,
 * 0 to let hypre compute them (AMGT_SETUP_KERNELS off, a CPU build, refused input). */
int amgt_glue_interp_twiaff(const amgt_twiaff_rows *rows);

/* The counting pass of BoomerAMG's strength of connection (plugin/coarsen/strength.h) on
 * device arrays, in place of hypre's hypre_BoomerAMGCreateS_rowcount, on hypre's compute
 * stream. Returns 1 when enqueued, 0 to let hypre count. */
int amgt_glue_strength_rowcount(const amgt_strength_rows *rows);

/* PMIS's per-sweep kernels (plugin/coarsen/pmis.h) on device arrays, in place of hypre's
 * hypreGPUKernel_IndepSetMain (which = 0: markers_* the set markers) and
 * hypreGPUKernel_PMISCoarseningUpdateCF (which = 1: markers_* the C/F markers, measure_diag
 * rewritten, measure_offd and temp_mark unused), on hypre's compute stream. Returns 1 when
 * enqueued, 0 to let hypre run its kernel. */
int amgt_glue_pmis(int which, const amgt_pmis_graph *graph, double *measure_diag, const double *measure_offd,
                   int *markers_diag, int *markers_offd, int temp_mark);

/* A row sum of one CSR block (plugin/csr/row_sums.h) on device arrays, in place of hypre's
 * hypreGPUKernel_CSRRowSum (hypre_CSRMatrixComputeRowSumDevice), on hypre's compute stream.
 * Returns 1 when enqueued, 0 to let hypre sum. */
int amgt_glue_row_sums(const amgt_row_sums *sums);

/* Extended+i's weak row sums (plugin/csr/row_sums.h) on device arrays, in place of hypre's
 * hypreGPUKernel_compute_weak_rowsums, on hypre's compute stream. Returns 1 when enqueued, 0
 * to let hypre sum. */
int amgt_glue_weak_row_sums(const amgt_weak_row_sums *sums);

/* The diagonal of a CSR block (plugin/csr/diag.h) on device arrays, in place of hypre's
 * hypreGPUKernel_CSRExtractDiag (ops 0-4) and hypreGPUKernel_CSRMoveDiagFirst (op 5), on
 * hypre's compute stream. Returns 1 when enqueued, 0 to let hypre's kernel run. */
int amgt_glue_csr_diag(const amgt_csr_diag *diag);

/* The copy of a truncated interpolation matrix (plugin/interp/truncation.h) on device arrays,
 * in place of hypre's hypreGPUKernel_InterpTruncationPass2_v1, on hypre's compute stream.
 * Returns 1 when enqueued, 0 to let hypre copy. */
int amgt_glue_trunc_copy(const amgt_trunc_copy *copy);

/* C = A*B. diag_first != 0 asks for hypre's host contract: every row of a square result
 * holds its diagonal entry (explicit zero if the product has none) first. */
int amgt_glue_spgemm(void **state_slot_A, const amgt_csr *A, void **state_slot_B,
                     const amgt_csr *B, int diag_first, amgt_csr_out *C);

/* A case the hypre side declined before calling in (transposed product, multivector...).
 * reason: text that stays valid and unchanged while the process runs (a string literal): the
 * count keeps its pointer and reads the text when the statistics are printed. */
void amgt_glue_count_fallback(void *state, const char *reason);
/* One product (product = 1) or matvec computed by hypre itself on its own kernel (vendor = 0)
 * or the vendor's (vendor = 1); printed with AMGT_STATS. Lock-free, never fails. */
void amgt_glue_count_stock_kernel(int product, int vendor);

/* A device product hypre computes itself under an AMGT mode (patches/0003): 1 when hypre is to
 * run it in its binned mode (the planner's stock_spgemm_binned), else 0; the binned ones are
 * counted for AMGT_STATS. Never fails: 0 on any error. */
int amgt_glue_stock_spgemm_binned(long long m, long long nnz_a, long long k, long long nnz_b);

/* ---- AMGT_RESETUP (resetup.h) ----
 * What a BoomerAMG setup is: a re-setup (the hierarchy's structure kept, values recomputed) or a
 * full one, and why. A larger code wins when the ranks' answers are reduced (MAX). */
enum
{
   AMGT_SETUP_RESETUP     = 0,
   AMGT_SETUP_FIRST       = 1, /* no hierarchy to keep (or its last setup was not recorded) */
   AMGT_SETUP_STRUCTURE   = 2, /* the fine matrix's structure differs from the hierarchy's */
   AMGT_SETUP_CYCLES      = 3, /* auto: the solves after the last re-setup took too many cycles */
   AMGT_SETUP_UNSUPPORTED = 4, /* BoomerAMG settings the re-setup does not cover */
   AMGT_SETUP_FAILED      = 5, /* the fingerprint or a plan could not be made */
   AMGT_SETUP_DRIFT       = 6  /* auto: a row's diagonal moved too far since the last full setup */
};
/* 0 off, 1 galerkin, 2 auto; 0 whenever AMGT is off (then hypre's setup is untouched). */
int amgt_glue_resetup_mode(void);
/* The structure fingerprint of A (row pointers, columns, shape; values not read), computed
 * where the arrays are. Returns 1 with *out set, 0 on failure. */
int amgt_glue_structure_fingerprint(const amgt_csr *A, unsigned long long *out);
/* This rank's answer for a setup of a matrix with this fingerprint (fingerprint_ok: it could be
 * made); record_slot: the state slot of the current hierarchy's level-1 operator's diagonal block,
 * NULL without a hierarchy; supported: the BoomerAMG settings allow a re-setup. */
int amgt_glue_resetup_propose(void **record_slot, int fingerprint_ok, unsigned long long fingerprint,
                              int supported, const amgt_csr *fine_diag);
/* The setup all ranks agreed on (reason: the reduced answer) begins; counted for AMGT_STATS. */
void amgt_glue_resetup_begin(void **record_slot, int reason);
/* A setup ended; after a full one (reason != 0) the new hierarchy's record (record_slot: its
 * level-1 operator's diagonal block; NULL for a hierarchy of one level) keeps the fingerprint and,
 * under auto, the diagonal of fine_diag (the fine matrix's diagonal block; may be NULL). */
void amgt_glue_resetup_end(void **record_slot, int reason, unsigned long long fingerprint,
                           const amgt_csr *fine_diag);
/* The hierarchy's record moves to another slot (its level-1 operator was replaced). */
void amgt_glue_resetup_move(void **from_slot, void **to_slot);
/* A re-setup's Galerkin products: levels on their plans, levels by hypre's own product, and the
 * seconds they took (timed only under AMGT_STATS, else 0). */
void amgt_glue_resetup_products(int on_plan, int by_hypre, double seconds);
/* A re-setup kept this matrix's structure (its arrays are those the plugin's copies were made
 * from): what was cached for them moves to this setup, as it is (values_changed = 0: P, R) or
 * with the device copy's values to be refreshed in place at its preparation (values_changed = 1:
 * the fine matrix, the coarse operators). */
void amgt_glue_matrix_carry(void **slot, const amgt_csr *A, int values_changed);
/* A BoomerAMG solve of the hierarchy made this many V-cycles (AMGT_RESETUP=auto's measure). */
void amgt_glue_resetup_cycles(void **record_slot, int cycles);
/* The values of the coarse operator C = R*A*P (c_val: C's value array, in C's own order) on a
 * plan kept in C's state (slot_c), built at its first call. Returns 1 when computed, 0 when
 * hypre must compute the product itself (the plan does not fit, or an error: reported once). */
int amgt_glue_galerkin(void **slot_c, const amgt_csr *R, const amgt_csr *A, const amgt_csr *P,
                       const amgt_csr *C, double *c_val);

/* Statistics table (AMGT_STATS) for this process; then release all global state. */
void amgt_glue_print_stats(int rank, int nranks);
void amgt_glue_finalize(void);

#ifdef __cplusplus
}
#endif

#endif /* AMGT_GLUE_H */
