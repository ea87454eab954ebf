/*
 * hypre's side of the AMGT glue, compiled into libHYPRE (C, hypre's own headers).
 *
 * It reads hypre's structs, decides which calls the plugin can take (everything else goes
 * back to hypre's own code), and hands the plugin plain views (amgt_glue.h). Products come
 * back in arrays allocated by hypre's allocator, so hypre frees them as its own.
 */
#include "_hypre_parcsr_ls.h"
#if defined(HYPRE_USING_CUDA)
#include "_hypre_utilities.hpp" /* hypre_HandleComputeStream */
#endif
#include "amgt_glue.h"
#include "amgt_hypre_hooks.h"

#include <stdlib.h>
#include <string.h>

#if defined(HYPRE_COMPLEX) || defined(HYPRE_BIGINT) || defined(HYPRE_SINGLE) || \
    defined(HYPRE_LONG_DOUBLE)
/* The plugin's views are int indices and double values: other builds always run stock. */
#define AMGT_TYPES_SUPPORTED 0
#else
#define AMGT_TYPES_SUPPORTED 1
#endif

static HYPRE_Int
amgt_on_device(HYPRE_MemoryLocation location)
{
   hypre_MemoryLocation actual = hypre_GetActualMemLocation(location);
   return (actual == hypre_MEMORY_DEVICE || actual == hypre_MEMORY_UNIFIED) ? 1 : 0;
}

static void *
amgt_hypre_alloc(size_t bytes, int on_device)
{
   if (bytes == 0) { bytes = 1; }
   return (void *) hypre_TAlloc(char, bytes, on_device ? HYPRE_MEMORY_DEVICE : HYPRE_MEMORY_HOST);
}

static void
amgt_hypre_release(void *ptr, int on_device)
{
   hypre_TFree(ptr, on_device ? HYPRE_MEMORY_DEVICE : HYPRE_MEMORY_HOST);
}

/* Set while the plugin times hypre's own matvec: the hook then declines every call. hypre
 * runs one thread per rank on the GPU path, which is the only one that sets it. */
static int amgt_bypass = 0;

static int
amgt_hypre_stock_spmv(void *owner, const double *x, double *y)
{
   hypre_CSRMatrix *A = (hypre_CSRMatrix *) owner;
   hypre_Vector    *xv, *yv;
   HYPRE_Int        ierr;

   if (!A) { return 0; }
   xv = hypre_SeqVectorCreate(hypre_CSRMatrixNumCols(A));
   yv = hypre_SeqVectorCreate(hypre_CSRMatrixNumRows(A));
   /* wrap the plugin's buffers: with data already set, Initialize only sets the strides
    * (which the matvec reads); not owned, so destroying the wrappers frees nothing else */
   hypre_VectorData(xv) = (HYPRE_Complex *) x;
   hypre_VectorData(yv) = (HYPRE_Complex *) y;
   hypre_SeqVectorInitialize_v2(xv, hypre_CSRMatrixMemoryLocation(A));
   hypre_SeqVectorInitialize_v2(yv, hypre_CSRMatrixMemoryLocation(A));
   hypre_SeqVectorSetDataOwner(xv, 0);
   hypre_SeqVectorSetDataOwner(yv, 0);
   amgt_bypass = 1;
   ierr        = hypre_CSRMatrixMatvec(1.0, A, xv, 0.0, yv);
   amgt_bypass = 0;
   hypre_SeqVectorDestroy(xv);
   hypre_SeqVectorDestroy(yv);
   return ierr == 0 ? 1 : 0;
}

#if defined(HYPRE_USING_CUDA)
static void *
amgt_hypre_compute_stream(void)
{
   return (void *) hypre_HandleComputeStream(hypre_handle());
}
#endif

/* hypre_AMGTSuspend: while set, every hook answers as under AMGT unset. */
static int amgt_suspended = 0;

void
hypre_AMGTSuspend(HYPRE_Int on)
{
   amgt_suspended = on ? 1 : 0;
}

/* Returns the plugin mode, installing hypre's allocator on first use. */
static int
amgt_active(void)
{
   static int allocator_set = 0;
   int mode;
   if (amgt_suspended) { return 0; }
   mode = amgt_glue_mode();
   if (mode != AMGT_MODE_OFF && !allocator_set)
   {
      amgt_allocator allocator;
      allocator.alloc   = amgt_hypre_alloc;
      allocator.release = amgt_hypre_release;
      allocator.stock_spmv = amgt_hypre_stock_spmv;
#if defined(HYPRE_USING_DEVICE_POOL)
      allocator.pooled = 1;
#else
      allocator.pooled = 0;
#endif
#if defined(HYPRE_USING_CUDA)
      allocator.compute_stream = amgt_hypre_compute_stream;
#else
      allocator.compute_stream = NULL;
#endif
      amgt_glue_set_allocator(&allocator);
      allocator_set = 1;
   }
   return mode != AMGT_MODE_OFF && AMGT_TYPES_SUPPORTED;
}

static void
amgt_view(hypre_CSRMatrix *A, amgt_csr *v)
{
   v->nrows     = (int) hypre_CSRMatrixNumRows(A);
   v->ncols     = (int) hypre_CSRMatrixNumCols(A);
   v->nnz       = (int) hypre_CSRMatrixNumNonzeros(A);
   v->row_ptr   = (const int *) hypre_CSRMatrixI(A);
   v->col       = (const int *) hypre_CSRMatrixJ(A);
   v->val       = hypre_CSRMatrixPatternOnly(A) ? NULL : (const double *) hypre_CSRMatrixData(A);
   v->on_device = amgt_on_device(hypre_CSRMatrixMemoryLocation(A));
   v->owner     = (void *) A;
}

HYPRE_Int
hypre_AMGTMatvec(HYPRE_Int trans, HYPRE_Complex alpha, hypre_CSRMatrix *A, hypre_Vector *x,
                 HYPRE_Complex beta, hypre_Vector *b, hypre_Vector *y, HYPRE_Int offset)
{
   amgt_csr  view;
   HYPRE_Int nrows, ncols;

   if (amgt_bypass || !amgt_active()) { return 0; }

   nrows = hypre_CSRMatrixNumRows(A);
   ncols = hypre_CSRMatrixNumCols(A);
   if (trans) { amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(A), "transposed"); return 0; }
   if (offset != 0) { amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(A), "offset"); return 0; }
   if (hypre_VectorNumVectors(x) != 1)
   {
      amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(A), "multivector");
      return 0;
   }
   if (x == y || hypre_VectorData(x) == hypre_VectorData(y) ||
       hypre_VectorSize(x) < ncols || hypre_VectorSize(y) < nrows || hypre_VectorSize(b) < nrows ||
       hypre_CSRMatrixNumNonzeros(A) <= 0 || hypre_CSRMatrixI(A) == NULL)
   {
      /* aliasing or shapes hypre treats specially: hypre's own code handles them */
      amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(A), "vector-shape");
      return 0;
   }
   amgt_view(A, &view);
   if (amgt_on_device(hypre_VectorMemoryLocation(x)) != view.on_device ||
       amgt_on_device(hypre_VectorMemoryLocation(y)) != view.on_device)
   {
      amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(A), "mixed-memory");
      return 0;
   }
   if (hypre_VectorData(b) != hypre_VectorData(y) &&
       amgt_on_device(hypre_VectorMemoryLocation(b)) != view.on_device)
   {
      amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(A), "mixed-memory");
      return 0;
   }
   /* y = alpha*A*x + beta*b with b read in place: on the device hypre calls this before its
    * copy b -> y (patch 0002), so an out-of-place product (the cycle's residual, the
    * smoother's f - A*u) costs no copy */
   return amgt_glue_spmv_b(&hypre_CSRMatrixAMGTData(A), &view, (double) alpha,
                           (const double *) hypre_VectorData(x), (double) beta,
                           (const double *) hypre_VectorData(b), (double *) hypre_VectorData(y));
}

HYPRE_Int
hypre_AMGTSpGemm(hypre_CSRMatrix *A, hypre_CSRMatrix *B, hypre_CSRMatrix **C_ptr)
{
   amgt_csr         va, vb;
   amgt_csr_out     out;
   hypre_CSRMatrix *C;
   HYPRE_Int        diag_first;

   if (!amgt_active()) { return 0; }

   amgt_view(A, &va);
   amgt_view(B, &vb);
   if (va.on_device != vb.on_device)
   {
      amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(A), "mixed-memory");
      return 0;
   }
   if (!va.on_device && hypre_CSRMatrixRownnz(A) != NULL)
   {
      /* hypre's host product skips rows outside rownnz (no forced diagonal there) */
      amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(A), "rownnz");
      return 0;
   }
   /* Host contract (csr_matop.c): square results carry their diagonal first in every row. */
   diag_first = (!va.on_device && va.nrows == vb.ncols) ? 1 : 0;

   memset(&out, 0, sizeof(out));
   if (!amgt_glue_spgemm(&hypre_CSRMatrixAMGTData(A), &va, &hypre_CSRMatrixAMGTData(B), &vb,
                         diag_first, &out))
   {
      return 0;
   }

   C = hypre_CSRMatrixCreate(va.nrows, vb.ncols, out.nnz);
   hypre_CSRMatrixI(C)              = (HYPRE_Int *) out.row_ptr;
   hypre_CSRMatrixJ(C)              = (HYPRE_Int *) out.col;
   hypre_CSRMatrixData(C)           = (HYPRE_Complex *) out.val;
   hypre_CSRMatrixMemoryLocation(C) = va.on_device ? HYPRE_MEMORY_DEVICE : HYPRE_MEMORY_HOST;
   *C_ptr = C;
   return 1;
}

/* The kernel hypre runs for what the plugin leaves to it, under an AMGT mode, by rules from
 * measurements on the H100 (bench/RESULTS.md): products always on hypre's own kernel (every
 * product of the reference setups ran faster there than on cuSPARSE, 1.5-10x on the Galerkin
 * products; whole setups 1.2-1.6x), in its binned mode where the planner's rule says so
 * (*binned; untouched otherwise: the application's setting); matvecs of fewer than
 * AMGT_VENDOR_SPMV_ENTRIES (2^22) entries on hypre's own kernel (5-7 us against cuSPARSE's
 * 11-16 us on coarse levels; below 2^22 the cost model leaves matrices to hypre, whose own
 * kernel is then what stock hypre runs), larger ones on cuSPARSE (5-10% faster than hypre's
 * own on the fine operators and P^T of the reference problems, 7-27M entries). */
HYPRE_Int
hypre_AMGTStockSpGemmUseVendor(hypre_CSRMatrix *A, hypre_CSRMatrix *B, HYPRE_Int app_choice,
                               HYPRE_Int *binned)
{
   if (!amgt_active()) { return app_choice; }
   amgt_glue_count_stock_kernel(1, 0);
   if (A && B && binned &&
       amgt_glue_stock_spgemm_binned((long long) hypre_CSRMatrixNumRows(A),
                                     (long long) hypre_CSRMatrixNumNonzeros(A),
                                     (long long) hypre_CSRMatrixNumRows(B),
                                     (long long) hypre_CSRMatrixNumNonzeros(B)))
   {
      *binned = 1;
   }
   return 0;
}

HYPRE_Int
hypre_AMGTStockMatvecUseVendor(hypre_CSRMatrix *A, HYPRE_Int app_choice)
{
   HYPRE_Int vendor;
   if (!amgt_active() || !A) { return app_choice; }
   vendor = hypre_CSRMatrixNumNonzeros(A) >= AMGT_VENDOR_SPMV_ENTRIES ? 1 : 0;
   amgt_glue_count_stock_kernel(0, vendor);
   return vendor;
}

void
hypre_AMGTCSRMatrixRelease(hypre_CSRMatrix *A)
{
   if (A && hypre_CSRMatrixAMGTData(A))
   {
      amgt_glue_matrix_release(hypre_CSRMatrixAMGTData(A));
      hypre_CSRMatrixAMGTData(A) = NULL;
   }
}

void
hypre_AMGTInitialize(void)
{
#if defined(HYPRE_USING_GPU)
   if (amgt_active()) { amgt_glue_initialize(); }
#endif
}

void
hypre_AMGTSetupBegin(void)
{
   if (amgt_active()) { amgt_glue_setup_begin(); }
}

void
hypre_AMGTSetSetupLevel(HYPRE_Int level)
{
   if (amgt_active()) { amgt_glue_set_setup_level((int) level); }
}

void
hypre_AMGTCycleBegin(HYPRE_Int index)
{
   if (amgt_active()) { amgt_glue_cycle_begin((int) index); }
}

void
hypre_AMGTCycleEnd(void)
{
   if (amgt_active()) { amgt_glue_cycle_end(); }
}

/* Set while hypre_AMGTLevelDone tags a finished level: its device matrices are prepared
 * beside the rest of the setup. */
static int amgt_beside = 0;

/* Set while hypre_AMGTTagLevels lists the matrices it is about to prepare (the survey,
 * amgt_glue_matrices_survey): amgt_tag_csr then only appends to this list. */
typedef struct
{
   int               collecting;
   int               n, capacity;
   amgt_survey_item *items;
} amgt_survey_list;
static amgt_survey_list amgt_survey = {0, 0, 0, NULL};

static void
amgt_survey_append(void **slot, const amgt_csr *view, int level, int role)
{
   amgt_survey_list *L = &amgt_survey;
   if (L->n == L->capacity)
   {
      int               cap   = L->capacity ? 2 * L->capacity : 64;
      amgt_survey_item *items = (amgt_survey_item *) realloc(L->items, (size_t) cap * sizeof(amgt_survey_item));
      /* no room: the rest is measured matrix by matrix when it is prepared */
      if (!items) { return; }
      L->items    = items;
      L->capacity = cap;
   }
   L->items[L->n].slot  = slot;
   L->items[L->n].A     = *view;
   L->items[L->n].level = level;
   L->items[L->n].role  = role;
   L->n++;
}

static void
amgt_tag_csr(hypre_CSRMatrix *M, HYPRE_Int level, int role, int offd)
{
   amgt_csr view;

   if (!M) { return; }
   if (amgt_survey.collecting)
   {
      if (hypre_CSRMatrixNumNonzeros(M) > 0 && hypre_CSRMatrixI(M) != NULL)
      {
         amgt_view(M, &view);
         if (view.on_device) { amgt_survey_append(&hypre_CSRMatrixAMGTData(M), &view, (int) level, role); }
      }
      return;
   }
   amgt_glue_matrix_tag(&hypre_CSRMatrixAMGTData(M), (int) level, role);
   if (offd) { amgt_glue_matrix_mark_offd(&hypre_CSRMatrixAMGTData(M)); }
   /* device matrices: convert and plan now, inside the setup, not in the first solve call */
   if (hypre_CSRMatrixNumNonzeros(M) > 0 && hypre_CSRMatrixI(M) != NULL)
   {
      amgt_view(M, &view);
      if (!view.on_device) { return; }
      if (amgt_beside) { amgt_glue_matrix_prepare_beside(&hypre_CSRMatrixAMGTData(M), &view); }
      else { amgt_glue_matrix_prepare(&hypre_CSRMatrixAMGTData(M), &view); }
   }
}

static void
amgt_tag_parcsr(hypre_ParCSRMatrix *M, HYPRE_Int level, int role)
{
   if (!M) { return; }
   amgt_tag_csr(hypre_ParCSRMatrixDiag(M), level, role, 0);
   amgt_tag_csr(hypre_ParCSRMatrixOffd(M), level, role, 1);
   /* stored transposes (keep-transpose): restriction runs as their forward product */
   amgt_tag_csr(hypre_ParCSRMatrixDiagT(M), level, role == AMGT_ROLE_P ? AMGT_ROLE_R : role, 0);
   amgt_tag_csr(hypre_ParCSRMatrixOffdT(M), level, role == AMGT_ROLE_P ? AMGT_ROLE_R : role, 1);
}

void
hypre_AMGTLevelDone(hypre_ParCSRMatrix **A_array, hypre_ParCSRMatrix **P_array,
                    hypre_ParCSRMatrix **R_array, HYPRE_Int level)
{
   /* without the overlap the level is tagged and prepared at the end (hypre_AMGTTagLevels) */
   if (!amgt_active() || level < 0 || !A_array || !amgt_glue_setup_overlap()) { return; }
   amgt_beside = 1;
   amgt_tag_parcsr(A_array[level], level, AMGT_ROLE_A);
   /* P_level exists: the caller has built level + 1 from it */
   amgt_tag_parcsr(P_array ? P_array[level] : NULL, level, AMGT_ROLE_P);
   if (R_array && (!P_array || R_array[level] != P_array[level]))
   {
      amgt_tag_parcsr(R_array[level], level, AMGT_ROLE_R);
   }
   amgt_beside = 0;
}

/* Tags (and prepares) every level's A, P and R; while amgt_survey.collecting, lists them. */
static void
amgt_tag_levels(hypre_ParCSRMatrix **A_array, hypre_ParCSRMatrix **P_array,
                hypre_ParCSRMatrix **R_array, HYPRE_Int num_levels)
{
   HYPRE_Int level;

   for (level = 0; level < num_levels; level++)
   {
      amgt_tag_parcsr(A_array ? A_array[level] : NULL, level, AMGT_ROLE_A);
      if (level < num_levels - 1)
      {
         /* P_l maps level l+1 to level l; it runs in level l's precision, as does R_l */
         amgt_tag_parcsr(P_array ? P_array[level] : NULL, level, AMGT_ROLE_P);
         if (R_array && (!P_array || R_array[level] != P_array[level]))
         {
            amgt_tag_parcsr(R_array[level], level, AMGT_ROLE_R);
         }
      }
   }
}

void
hypre_AMGTTagLevels(hypre_ParCSRMatrix **A_array, hypre_ParCSRMatrix **P_array,
                    hypre_ParCSRMatrix **R_array, HYPRE_Int num_levels)
{
   if (!amgt_active()) { return; }
   /* what was queued beside the setup has run; a matrix prepared then is skipped below */
   amgt_glue_prepare_settle();
   /* the survey first: what the preparations below will measure, for all matrices at once */
   amgt_survey.collecting = 1;
   amgt_survey.n          = 0;
   amgt_tag_levels(A_array, P_array, R_array, num_levels);
   amgt_survey.collecting = 0;
   amgt_glue_matrices_survey(amgt_survey.n, amgt_survey.items);
   free(amgt_survey.items);
   memset(&amgt_survey, 0, sizeof(amgt_survey));
   amgt_tag_levels(A_array, P_array, R_array, num_levels);
}

static void
amgt_invalidate_csr(hypre_CSRMatrix *M)
{
   if (M && hypre_CSRMatrixAMGTData(M)) { amgt_glue_matrix_invalidate(hypre_CSRMatrixAMGTData(M)); }
}

void
hypre_AMGTParCSRMatrixValuesChanged(hypre_ParCSRMatrix *A)
{
   if (!A) { return; }
   amgt_invalidate_csr(hypre_ParCSRMatrixDiag(A));
   amgt_invalidate_csr(hypre_ParCSRMatrixOffd(A));
   amgt_invalidate_csr(hypre_ParCSRMatrixDiagT(A));
   amgt_invalidate_csr(hypre_ParCSRMatrixOffdT(A));
#if defined(HYPRE_USING_GPU)
   /* the application's matrix has its values: the preload decides by its size whether it
    * goes on loading beside the rest of the application's preparation (AMGT_PRELOAD) */
   if (amgt_active())
   {
      long long entries = 0;
      if (hypre_ParCSRMatrixDiag(A)) { entries += hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(A)); }
      if (hypre_ParCSRMatrixOffd(A)) { entries += hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A)); }
      amgt_glue_matrix_assembled(entries);
   }
#endif
}

/* One vector of at least n entries in the given memory (aliasing is checked by the caller). */
static HYPRE_Int
amgt_sweep_vector(hypre_Vector *v, HYPRE_Int n, HYPRE_Int on_device)
{
   return v && hypre_VectorData(v) && hypre_VectorNumVectors(v) == 1 && hypre_VectorSize(v) >= n &&
          amgt_on_device(hypre_VectorMemoryLocation(v)) == on_device;
}

HYPRE_Int
hypre_AMGTRelaxJacobi(hypre_ParCSRMatrix *A, hypre_ParVector *f, HYPRE_Int relax_points,
                      HYPRE_Real relax_weight, HYPRE_Real *l1_norms, hypre_ParVector *u,
                      hypre_ParVector *Vtemp)
{
   hypre_CSRMatrix *diag;
   hypre_Vector    *fl, *ul, *vl;
   hypre_Vector     l1v;
   HYPRE_Int        n, on_device;

   if (amgt_bypass || !amgt_active() || !A || !f || !u || !Vtemp || !l1_norms) { return 0; }
   diag = hypre_ParCSRMatrixDiag(A);
   if (relax_points != 0)
   {
      /* C/F-marked sweeps keep hypre's marked update */
      amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(diag), "relax-cf-marked");
      return 0;
   }
   fl        = hypre_ParVectorLocalVector(f);
   ul        = hypre_ParVectorLocalVector(u);
   vl        = hypre_ParVectorLocalVector(Vtemp);
   n         = hypre_CSRMatrixNumRows(diag);
   on_device = amgt_on_device(hypre_ParCSRMatrixMemoryLocation(A));
   if (!amgt_sweep_vector(fl, n, on_device) || !amgt_sweep_vector(ul, n, on_device) ||
       !amgt_sweep_vector(vl, n, on_device) || hypre_VectorData(fl) == hypre_VectorData(vl) ||
       hypre_VectorData(ul) == hypre_VectorData(vl) || hypre_VectorData(ul) == hypre_VectorData(fl))
   {
      amgt_glue_count_fallback(hypre_CSRMatrixAMGTData(diag), "relax-vector-shape");
      return 0;
   }
   if (n == 0) { return 0; }

   if (hypre_ParVectorAllZeros(u))
   {
      /* Vtemp = w*f, u = Vtemp ./ l1 in one pass instead of hypre's copy, scale and update */
      return amgt_glue_jacobi_from_zero(&hypre_CSRMatrixAMGTData(diag), (long) n, (double) relax_weight,
                                        (const double *) hypre_VectorData(fl), (const double *) l1_norms,
                                        (double *) hypre_VectorData(ul), (double *) hypre_VectorData(vl),
                                        (int) on_device) ? 1 : 0;
   }

   /* Vtemp = w*(f - A*u) as one out-of-place product: the diagonal block's matvec reads f in
    * place (hypre_AMGTMatvec), where hypre's Relax7 copies f into Vtemp first. Should the
    * plugin decline it, hypre's own matvec copies and computes the same. Then hypre's own
    * update u += Vtemp ./ l1, on a wrapper of l1_norms as Relax7 builds it. */
   hypre_ParCSRMatrixMatvecOutOfPlace(-relax_weight, A, u, relax_weight, f, Vtemp);
   memset(&l1v, 0, sizeof(l1v));
   hypre_VectorNumVectors(&l1v)            = 1;
   hypre_VectorMultiVecStorageMethod(&l1v) = 0;
   hypre_VectorOwnsData(&l1v)              = 0;
   hypre_VectorData(&l1v)                  = l1_norms;
   hypre_VectorSize(&l1v)                  = n;
   hypre_VectorMemoryLocation(&l1v)        = hypre_VectorMemoryLocation(fl);
   hypre_SeqVectorElmdivpy(vl, &l1v, ul);
   amgt_glue_count_sweep();
   return 1;
}

HYPRE_Int
hypre_AMGTInterpTwiaff(HYPRE_Int nrows, HYPRE_BigInt first_index, HYPRE_Int diag_nnz, HYPRE_Int *diag_i,
                       HYPRE_Int *diag_j, HYPRE_Complex *diag_a, HYPRE_Complex *diag_old, HYPRE_Int offd_nnz,
                       HYPRE_Int *offd_i, HYPRE_Int *offd_j, HYPRE_Complex *offd_a, HYPRE_Int *ext_i,
                       HYPRE_BigInt *ext_j, HYPRE_Complex *ext_a, HYPRE_Complex *rsW, HYPRE_Complex *rsFC,
                       HYPRE_Complex *rsFC_offd)
{
   amgt_twiaff_rows a;

   if (amgt_bypass || !amgt_active()) { return 0; }
   /* the plugin's arrays: 32-bit local indices and real doubles */
   if (sizeof(HYPRE_Int) != sizeof(int) || sizeof(HYPRE_Complex) != sizeof(double) ||
       (sizeof(HYPRE_BigInt) != 4 && sizeof(HYPRE_BigInt) != 8))
   {
      return 0;
   }
   memset(&a, 0, sizeof(a));
   a.nrows       = (int32_t) nrows;
   a.first_index = (int64_t) first_index;
   a.diag_nnz    = (int64_t) diag_nnz;
   a.diag_i      = (const int32_t *) diag_i;
   a.diag_j      = (const int32_t *) diag_j;
   a.diag_a      = (double *) diag_a;
   a.diag_old    = (const double *) diag_old;
   a.offd_nnz    = (int64_t) offd_nnz;
   a.offd_i      = (const int32_t *) offd_i;
   a.offd_j      = (const int32_t *) offd_j;
   a.offd_a      = (double *) offd_a;
   a.ext_i       = (const int32_t *) ext_i;
   a.ext_j       = (const void *) ext_j;
   a.ext_j_64    = sizeof(HYPRE_BigInt) == 8;
   a.ext_a       = (const double *) ext_a;
   a.rsW         = (const double *) rsW;
   a.rsFC        = (const double *) rsFC;
   a.rsFC_offd   = (const double *) rsFC_offd;
   return amgt_glue_interp_twiaff(&a) ? 1 : 0;
}

HYPRE_Int
hypre_AMGTStrengthRowcount(HYPRE_Int nrows, HYPRE_Real max_row_sum, HYPRE_Real strength_threshold,
                           HYPRE_Int diag_nnz, HYPRE_Real *diag_a, HYPRE_Int *diag_i, HYPRE_Int *diag_j,
                           HYPRE_Int offd_nnz, HYPRE_Real *offd_a, HYPRE_Int *offd_i, HYPRE_Int *offd_j,
                           HYPRE_Int *s_diag_j, HYPRE_Int *s_offd_j, HYPRE_Int num_functions,
                           HYPRE_Int *dof_func, HYPRE_Int *dof_func_offd, HYPRE_Int *js_diag, HYPRE_Int *js_offd)
{
   amgt_strength_rows a;

   if (amgt_bypass || !amgt_active()) { return 0; }
   if (sizeof(HYPRE_Int) != sizeof(int) || sizeof(HYPRE_Real) != sizeof(double)) { return 0; }
   memset(&a, 0, sizeof(a));
   a.nrows              = (int32_t) nrows;
   a.max_row_sum        = (double) max_row_sum;
   a.strength_threshold = (double) strength_threshold;
   a.diag_nnz           = (int64_t) diag_nnz;
   a.offd_nnz           = (int64_t) offd_nnz;
   a.diag_i             = (const int32_t *) diag_i;
   a.diag_j             = (const int32_t *) diag_j;
   a.diag_a             = (const double *) diag_a;
   a.offd_i             = (const int32_t *) offd_i;
   a.offd_j             = (const int32_t *) offd_j;
   a.offd_a             = (const double *) offd_a;
   a.num_functions      = (int32_t) num_functions;
   a.dof_func           = (const int32_t *) dof_func;
   a.dof_func_offd      = (const int32_t *) dof_func_offd;
   a.s_diag_j           = (int32_t *) s_diag_j;
   a.s_offd_j           = (int32_t *) s_offd_j;
   a.js_diag            = (int32_t *) js_diag;
   a.js_offd            = (int32_t *) js_offd;
   return amgt_glue_strength_rowcount(&a) ? 1 : 0;
}

HYPRE_Int
hypre_AMGTPmis(HYPRE_Int which, HYPRE_Int graph_size, HYPRE_Int *graph, HYPRE_Int nrows, HYPRE_Int s_diag_nnz,
               HYPRE_Int *s_diag_i, HYPRE_Int *s_diag_j, HYPRE_Int s_offd_nnz, HYPRE_Int *s_offd_i,
               HYPRE_Int *s_offd_j, HYPRE_Real *measure_diag, HYPRE_Real *measure_offd, HYPRE_Int *markers_diag,
               HYPRE_Int *markers_offd, HYPRE_Int temp_mark)
{
   amgt_pmis_graph a;

   if (amgt_bypass || !amgt_active()) { return 0; }
   if (sizeof(HYPRE_Int) != sizeof(int) || sizeof(HYPRE_Real) != sizeof(double)) { return 0; }
   memset(&a, 0, sizeof(a));
   a.graph_size = (int32_t) graph_size;
   a.graph      = (const int32_t *) graph;
   a.nrows      = (int32_t) nrows;
   a.s_diag_nnz = (int64_t) s_diag_nnz;
   a.s_offd_nnz = (int64_t) s_offd_nnz;
   a.s_diag_i   = (const int32_t *) s_diag_i;
   a.s_diag_j   = (const int32_t *) s_diag_j;
   a.s_offd_i   = (const int32_t *) s_offd_i;
   a.s_offd_j   = (const int32_t *) s_offd_j;
   return amgt_glue_pmis((int) which, &a, (double *) measure_diag, (const double *) measure_offd,
                         (int *) markers_diag, (int *) markers_offd, (int) temp_mark) ? 1 : 0;
}

HYPRE_Int
hypre_AMGTRowSum(HYPRE_Int nrows, HYPRE_Int ncols, HYPRE_Int nnz, HYPRE_Int *ia, HYPRE_Int *ja, HYPRE_Complex *a_data,
                 HYPRE_Int *CF_i, HYPRE_Int *CF_j, HYPRE_Complex *row_sum, HYPRE_Int type, HYPRE_Complex scal,
                 HYPRE_Int set)
{
   amgt_row_sums a;

   if (amgt_bypass || !amgt_active()) { return 0; }
   if (sizeof(HYPRE_Int) != sizeof(int) || sizeof(HYPRE_Complex) != sizeof(double)) { return 0; }
   memset(&a, 0, sizeof(a));
   a.nrows = (int32_t) nrows;
   a.ncols = (int32_t) ncols;
   a.nnz   = (int64_t) nnz;
   a.ia    = (const int32_t *) ia;
   a.ja    = (const int32_t *) ja;
   a.a     = (const double *) a_data;
   /* hypre tests both: one alone counts as neither */
   a.cf_i  = CF_i && CF_j ? (const int32_t *) CF_i : NULL;
   a.cf_j  = CF_i && CF_j ? (const int32_t *) CF_j : NULL;
   a.type  = (int32_t) type;
   a.scal  = (double) scal;
   a.set   = set ? 1 : 0;
   a.out   = (double *) row_sum;
   return amgt_glue_row_sums(&a) ? 1 : 0;
}

HYPRE_Int
hypre_AMGTWeakRowSums(HYPRE_Int nrows, HYPRE_Int has_offd, HYPRE_Int diag_nnz, HYPRE_Int offd_nnz,
                      HYPRE_Int *CF_marker, HYPRE_Int *diag_i, HYPRE_Complex *diag_a, HYPRE_Int *soc_diag_j,
                      HYPRE_Int *offd_i, HYPRE_Complex *offd_a, HYPRE_Int *soc_offd_j, HYPRE_Real *rs,
                      HYPRE_Int flag)
{
   amgt_weak_row_sums a;

   if (amgt_bypass || !amgt_active()) { return 0; }
   if (sizeof(HYPRE_Int) != sizeof(int) || sizeof(HYPRE_Complex) != sizeof(double) ||
       sizeof(HYPRE_Real) != sizeof(double)) { return 0; }
   memset(&a, 0, sizeof(a));
   a.nrows      = (int32_t) nrows;
   a.has_offd   = has_offd ? 1 : 0;
   a.nnz        = (int64_t) diag_nnz + (int64_t) (has_offd ? offd_nnz : 0);
   a.cf_marker  = (const int32_t *) CF_marker;
   a.flag       = (int32_t) flag;
   a.diag_i     = (const int32_t *) diag_i;
   a.diag_a     = (const double *) diag_a;
   a.soc_diag_j = (const int32_t *) soc_diag_j;
   a.offd_i     = (const int32_t *) offd_i;
   a.offd_a     = (const double *) offd_a;
   a.soc_offd_j = (const int32_t *) soc_offd_j;
   a.rs         = (double *) rs;
   return amgt_glue_weak_row_sums(&a) ? 1 : 0;
}

HYPRE_Int
hypre_AMGTTruncCopy(HYPRE_Int nrows, HYPRE_Int nnz_new, HYPRE_Int *diag_i, HYPRE_Int *diag_j, HYPRE_Real *diag_a,
                    HYPRE_Int *offd_i, HYPRE_Int *offd_j, HYPRE_Real *offd_a, HYPRE_Int *diag_i_new,
                    HYPRE_Int *diag_j_new, HYPRE_Real *diag_a_new, HYPRE_Int *offd_i_new, HYPRE_Int *offd_j_new,
                    HYPRE_Real *offd_a_new)
{
   amgt_trunc_copy a;

   if (amgt_bypass || !amgt_active()) { return 0; }
   if (sizeof(HYPRE_Int) != sizeof(int) || sizeof(HYPRE_Real) != sizeof(double)) { return 0; }
   memset(&a, 0, sizeof(a));
   a.nrows      = (int32_t) nrows;
   a.nnz_new    = (int64_t) nnz_new;
   a.diag_i     = (const int32_t *) diag_i;
   a.diag_j     = (const int32_t *) diag_j;
   a.diag_a     = (const double *) diag_a;
   a.offd_i     = (const int32_t *) offd_i;
   a.offd_j     = (const int32_t *) offd_j;
   a.offd_a     = (const double *) offd_a;
   a.diag_i_new = (const int32_t *) diag_i_new;
   a.diag_j_new = (int32_t *) diag_j_new;
   a.diag_a_new = (double *) diag_a_new;
   a.offd_i_new = (const int32_t *) offd_i_new;
   a.offd_j_new = (int32_t *) offd_j_new;
   a.offd_a_new = (double *) offd_a_new;
   return amgt_glue_trunc_copy(&a) ? 1 : 0;
}

HYPRE_Int
hypre_AMGTCsrDiag(HYPRE_Int nrows, HYPRE_Int nnz, HYPRE_Int *ia, HYPRE_Int *ja, HYPRE_Complex *a_data,
                  HYPRE_Complex *d, HYPRE_Int op)
{
   amgt_csr_diag a;

   if (amgt_bypass || !amgt_active()) { return 0; }
   if (sizeof(HYPRE_Int) != sizeof(int) || sizeof(HYPRE_Complex) != sizeof(double)) { return 0; }
   if (op < 0 || op > 5) { return 0; }
   memset(&a, 0, sizeof(a));
   a.nrows = (int32_t) nrows;
   a.nnz   = (int64_t) nnz;
   a.ia    = (const int32_t *) ia;
   a.ja    = (int32_t *) ja;
   a.a     = (double *) a_data;
   a.op    = (int32_t) op;
   a.d     = (double *) d;
   return amgt_glue_csr_diag(&a) ? 1 : 0;
}

/* ---- AMGT_RESETUP (patches/0006, hypre_glue/resetup.h) ---- */

/* Where a hierarchy keeps its record: the plugin state of its level-1 operator's diagonal block. */
static void **
amgt_record_slot(hypre_ParCSRMatrix **A_array, HYPRE_Int num_levels)
{
   if (!A_array || num_levels < 2 || !A_array[1] || !hypre_ParCSRMatrixDiag(A_array[1])) { return NULL; }
   return &hypre_CSRMatrixAMGTData(hypre_ParCSRMatrixDiag(A_array[1]));
}

/* The structure of a ParCSR matrix on this rank: its diagonal and off-diagonal blocks (on the
 * device, one reduction each), its rows in the global numbering and the off-diagonal block's
 * global columns (host arrays, FNV-1a). */
static int
amgt_fingerprint_parcsr(hypre_ParCSRMatrix *A, unsigned long long *out)
{
   hypre_CSRMatrix   *offd = hypre_ParCSRMatrixOffd(A);
   HYPRE_BigInt      *map  = hypre_ParCSRMatrixColMapOffd(A);
   HYPRE_Int          n    = offd ? hypre_CSRMatrixNumCols(offd) : 0, i;
   unsigned long long hd = 0, ho = 0, h;
   amgt_csr           v;

   amgt_view(hypre_ParCSRMatrixDiag(A), &v);
   if (!amgt_glue_structure_fingerprint(&v, &hd)) { return 0; }
   if (offd && hypre_CSRMatrixNumNonzeros(offd) > 0)
   {
      amgt_view(offd, &v);
      if (!amgt_glue_structure_fingerprint(&v, &ho)) { return 0; }
   }
   h = 1469598103934665603ULL;
   h = (h ^ (unsigned long long) hypre_ParCSRMatrixFirstRowIndex(A)) * 1099511628211ULL;
   h = (h ^ (unsigned long long) hypre_ParCSRMatrixGlobalNumRows(A)) * 1099511628211ULL;
   h = (h ^ (unsigned long long) n) * 1099511628211ULL;
   for (i = 0; map && i < n; i++) { h = (h ^ (unsigned long long) map[i]) * 1099511628211ULL; }
   *out = hd ^ (ho * 0x9e3779b97f4a7c15ULL) ^ (h * 0xc2b2ae3d27d4eb4fULL);
   return 1;
}

HYPRE_Int
hypre_AMGTResetupBegin(hypre_ParCSRMatrix *A, hypre_ParCSRMatrix **A_array, HYPRE_Int old_num_levels,
                       HYPRE_Int supported, HYPRE_Int *reason, unsigned long long *fingerprint)
{
   void   **slot;
   int      ok = 0, local, global;
   amgt_csr diag;

   *reason      = AMGT_SETUP_FIRST;
   *fingerprint = 0;
   if (!amgt_active() || !A || !amgt_glue_resetup_mode()) { return 0; }
   slot = amgt_record_slot(A_array, old_num_levels);
   if (supported) { ok = amgt_fingerprint_parcsr(A, fingerprint); }
   amgt_view(hypre_ParCSRMatrixDiag(A), &diag);
   local  = amgt_glue_resetup_propose(slot, ok, *fingerprint, supported ? 1 : 0, &diag);
   global = local;
   /* any rank's full setup makes every rank's full: the hierarchy is one object */
   hypre_MPI_Allreduce(&local, &global, 1, hypre_MPI_INT, hypre_MPI_MAX, hypre_ParCSRMatrixComm(A));
   amgt_glue_resetup_begin(slot, global);
   *reason = (global == AMGT_SETUP_RESETUP || ok) ? global : AMGT_SETUP_FAILED;
   return global == AMGT_SETUP_RESETUP;
}

static void
amgt_carry_csr(hypre_CSRMatrix *M, int values_changed)
{
   amgt_csr view;
   if (!M || !hypre_CSRMatrixAMGTData(M)) { return; }
   amgt_view(M, &view);
   amgt_glue_matrix_carry(&hypre_CSRMatrixAMGTData(M), &view, values_changed);
}

/* A re-setup kept M's structure: its blocks' copies move to this setup (amgt_glue_matrix_carry). */
static void
amgt_carry_parcsr(hypre_ParCSRMatrix *M, int values_changed)
{
   if (!M) { return; }
   amgt_carry_csr(hypre_ParCSRMatrixDiag(M), values_changed);
   amgt_carry_csr(hypre_ParCSRMatrixOffd(M), values_changed);
   amgt_carry_csr(hypre_ParCSRMatrixDiagT(M), values_changed);
   amgt_carry_csr(hypre_ParCSRMatrixOffdT(M), values_changed);
}

void
hypre_AMGTResetupGalerkin(hypre_ParCSRMatrix **A_array, hypre_ParCSRMatrix **P_array, HYPRE_Int num_levels,
                          HYPRE_Int modular_matmat, HYPRE_Int keep_transpose)
{
   HYPRE_Int  level, num_procs = 1;
   int        on_plan = 0, by_hypre = 0;
   int        timed = amgt_glue_stats_enabled();
   HYPRE_Real t0 = 0.0;

   hypre_MPI_Comm_size(hypre_ParCSRMatrixComm(A_array[0]), &num_procs);
#if defined(HYPRE_USING_GPU)
   if (timed) { hypre_SyncComputeStream(hypre_handle()); }
#endif
   if (timed) { t0 = hypre_MPI_Wtime(); }
   /* the plugin's copies of what the re-setup keeps: P and its stored transpose as they are, the
    * fine matrix (its structure is the fingerprint's) with new values */
   for (level = 0; level < num_levels - 1; level++) { amgt_carry_parcsr(P_array[level], 0); }
   amgt_carry_parcsr(A_array[0], 1);
   for (level = 0; level < num_levels - 1; level++)
   {
      hypre_ParCSRMatrix *A    = A_array[level];
      hypre_ParCSRMatrix *P    = P_array[level];
      hypre_ParCSRMatrix *C    = A_array[level + 1];
      HYPRE_Int           done = 0;

      /* one rank: the diagonal blocks are the whole product (the off-diagonal ones are empty) */
      if (num_procs == 1 && AMGT_TYPES_SUPPORTED && A && P && C)
      {
         hypre_CSRMatrix *Pd = hypre_ParCSRMatrixDiag(P);
         hypre_CSRMatrix *Rd = hypre_ParCSRMatrixDiagT(P);
         hypre_CSRMatrix *Cd = hypre_ParCSRMatrixDiag(C);
         hypre_CSRMatrix *Rt = NULL;
         amgt_csr         r, a, p, c;

         /* R = P^T: hypre's stored transpose (keep-transpose, the GPU default), else one made
          * here (host builds, where BoomerAMG keeps none) */
         if (!Rd)
         {
            hypre_CSRMatrixTranspose(Pd, &Rt, 1);
            Rd = Rt;
         }
         amgt_view(Rd, &r);
         amgt_view(hypre_ParCSRMatrixDiag(A), &a);
         amgt_view(Pd, &p);
         amgt_view(Cd, &c);
         done = amgt_glue_galerkin(&hypre_CSRMatrixAMGTData(Cd), &r, &a, &p, &c, hypre_CSRMatrixData(Cd));
         if (Rt) { hypre_CSRMatrixDestroy(Rt); }
      }
      if (done)
      {
         /* new values in the same arrays: the copies' values are refreshed at their preparation */
         on_plan++;
         amgt_carry_parcsr(C, 1);
      }
      else
      {
         /* hypre's own product makes a new coarse operator; the hierarchy's record moves to it */
         hypre_ParCSRMatrix *A_H = NULL;
         if (modular_matmat) { A_H = hypre_ParCSRMatrixRAPKT(P, A, P, keep_transpose); }
         else { hypre_BoomerAMGBuildCoarseOperatorKT(P, A, P, keep_transpose, &A_H); }
         if (num_procs > 1 && hypre_ParCSRMatrixCommPkg(A_H) == NULL) { hypre_MatvecCommPkgCreate(A_H); }
         hypre_ParCSRMatrixSetNumNonzeros(A_H);
         hypre_ParCSRMatrixSetDNumNonzeros(A_H);
         if (level == 0)
         {
            amgt_glue_resetup_move(&hypre_CSRMatrixAMGTData(hypre_ParCSRMatrixDiag(C)),
                                   &hypre_CSRMatrixAMGTData(hypre_ParCSRMatrixDiag(A_H)));
         }
         hypre_ParCSRMatrixDestroy(C);
         A_array[level + 1] = A_H;
         by_hypre++;
      }
   }
#if defined(HYPRE_USING_GPU)
   if (timed) { hypre_SyncComputeStream(hypre_handle()); }
#endif
   amgt_glue_resetup_products(on_plan, by_hypre, timed ? (double) (hypre_MPI_Wtime() - t0) : 0.0);
}

void
hypre_AMGTResetupEnd(hypre_ParCSRMatrix **A_array, HYPRE_Int num_levels, HYPRE_Int reason,
                     unsigned long long fingerprint)
{
   amgt_csr diag;
   if (!amgt_active() || !amgt_glue_resetup_mode()) { return; }
   /* a full setup whose fingerprint could not be made, or whose settings are not covered,
    * records none: its next setup is a full one too */
   if (reason == AMGT_SETUP_FAILED || reason == AMGT_SETUP_UNSUPPORTED) { return; }
   amgt_view(hypre_ParCSRMatrixDiag(A_array[0]), &diag);
   amgt_glue_resetup_end(amgt_record_slot(A_array, num_levels), (int) reason, fingerprint, &diag);
}

void
hypre_AMGTSolveCycles(hypre_ParCSRMatrix **A_array, HYPRE_Int num_levels, HYPRE_Int cycles)
{
   void **slot;
   if (!amgt_active() || !amgt_glue_resetup_mode()) { return; }
   slot = amgt_record_slot(A_array, num_levels);
   if (slot) { amgt_glue_resetup_cycles(slot, (int) cycles); }
}

void
hypre_AMGTFinalize(void)
{
   int rank = 0, nranks = 1;

   if (amgt_glue_mode() == AMGT_MODE_OFF && !amgt_glue_stats_enabled())
   {
      amgt_glue_finalize();
      return;
   }
#if !defined(HYPRE_SEQUENTIAL)
   {
      int initialized = 0, finalized = 0;
      MPI_Initialized(&initialized);
      MPI_Finalized(&finalized);
      if (initialized && !finalized)
      {
         MPI_Comm_rank(MPI_COMM_WORLD, &rank);
         MPI_Comm_size(MPI_COMM_WORLD, &nranks);
      }
   }
#endif
   amgt_glue_print_stats(rank, nranks);
   amgt_glue_finalize();
}
