/* The arguments of the plugin's versions of hypre's setup kernels (AMGT_SETUP_KERNELS), one
 * definition for both sides of the C boundary: hypre_glue/amgt_hypre.c (C, inside libHYPRE)
 * fills them from hypre's arrays, and the plugin (C++: amgt::TwiaffRows, amgt::StrengthRows,
 * amgt::PmisGraph) reads them; nothing is copied on the way. Plain data: zero-initialise
 * (`= {0}` in C, `{}` in C++) and set what the kernel reads. */
#ifndef AMGT_SETUP_KERNELS_H
#define AMGT_SETUP_KERNELS_H

#include <stdint.h>

/* Extended+i's F-F weights (interp/twiaff.h). */
typedef struct amgt_twiaff_rows
{
   int32_t nrows;       /* F-rows of A_FF on this rank */
   int64_t first_index; /* global index of the first */
   /* diagonal block: diag_a is rewritten in place; diag_old holds its values before (a copy);
    * diag_nnz its entries (the device kernel sizes its groups of lanes by the mean row) */
   int64_t        diag_nnz;
   const int32_t* diag_i;
   const int32_t* diag_j;
   double*        diag_a;
   const double*  diag_old;
   /* off-diagonal block, rewritten in place (its column j is row j of ext); offd_nnz its entries */
   int64_t        offd_nnz;
   const int32_t* offd_i;
   const int32_t* offd_j;
   double*        offd_a;
   /* the other ranks' rows of A_FF with global columns, 64-bit where ext_j_64 != 0, else
    * 32-bit (as hypre's BigInt); may be null when the off-diagonal block has no entries */
   const int32_t* ext_i;
   const void*    ext_j;
   int32_t        ext_j_64;
   const double*  ext_a;
   const double*  rsW;       /* nrows */
   const double*  rsFC;      /* per diagonal column */
   const double*  rsFC_offd; /* per off-diagonal column */
   /* diag_a and offd_a share no memory with each other or with any array the kernel only reads
    * (diag_old a separate copy): the device kernel reads those through the read-only cache */
} amgt_twiaff_rows;

/* The counting pass of the strength of connection (coarsen/strength.h). */
typedef struct amgt_strength_rows
{
   int32_t        nrows;
   double         max_row_sum, strength_threshold;
   int64_t        diag_nnz, offd_nnz;
   const int32_t* diag_i;
   const int32_t* diag_j;
   const double*  diag_a;
   const int32_t* offd_i;
   const int32_t* offd_j;
   const double*  offd_a;
   int32_t        num_functions;
   const int32_t* dof_func;      /* per row and diagonal column (num_functions > 1) */
   const int32_t* dof_func_offd; /* per off-diagonal column (num_functions > 1) */
   int32_t*       s_diag_j;      /* written: diag_nnz */
   int32_t*       s_offd_j;      /* written: offd_nnz */
   int32_t*       js_diag;       /* written: nrows */
   int32_t*       js_offd;       /* written: nrows */
   /* the four written arrays share no memory with each other or with the read ones (the device
    * kernel reads those through the read-only cache) */
} amgt_strength_rows;

/* The graph of a PMIS sweep over the strength matrix S (coarsen/pmis.h). */
typedef struct amgt_pmis_graph
{
   int32_t        graph_size; /* rows of the graph */
   const int32_t* graph;      /* their indices */
   int32_t        nrows;      /* rows of S (for the mean row length) */
   int64_t        s_diag_nnz, s_offd_nnz;
   const int32_t* s_diag_i;
   const int32_t* s_diag_j;
   const int32_t* s_offd_i;
   const int32_t* s_offd_j;
   /* the graph and S are only read, and share no memory with the markers and measures the
    * sweep kernels write (pmis.h; the device kernels read them through the read-only cache) */
} amgt_pmis_graph;

/* A row sum of one CSR block, hypre_CSRMatrixComputeRowSumDevice's (csr/row_sums.h):
 * out[i] = scal * s_i (set) or out[i] += scal * s_i (add), s_i over row i's entries j with
 * cf_i[i] == cf_j[ja[j]] (both given) or all (neither). */
typedef struct amgt_row_sums
{
   int32_t        nrows;
   int32_t        ncols; /* 0: a block without entries (ia, ja and a are not read) */
   int64_t        nnz;   /* the block's entries: sizes the groups of lanes (ia decides) */
   const int32_t* ia;
   const int32_t* ja;
   const double*  a;
   const int32_t* cf_i; /* per row, or null */
   const int32_t* cf_j; /* per column, or null */
   int32_t        type; /* 0: a_ij, 1: |a_ij| */
   double         scal;
   int32_t        set;  /* 1: set, 0: add */
   double*        out;  /* nrows */
} amgt_row_sums;

/* Extended+i's row sums of the weak entries (csr/row_sums.h): for each row i with
 * cf_marker[i] < flag, rs[i] = the sum of a_ij over the entries j whose mark in the strength
 * matrix's column arrays (soc_*_j, the same positions as A's) is negative; the other rows' rs
 * is left as it is. */
typedef struct amgt_weak_row_sums
{
   int32_t        nrows;
   int32_t        has_offd; /* hypre's test: the off-diagonal block has entries */
   int64_t        nnz;      /* both blocks' entries: sizes the groups of lanes */
   const int32_t* cf_marker;
   int32_t        flag;
   const int32_t* diag_i;
   const double*  diag_a;
   const int32_t* soc_diag_j;
   const int32_t* offd_i;
   const double*  offd_a;
   const int32_t* soc_offd_j;
   double*        rs; /* nrows */
} amgt_weak_row_sums;

/* The diagonal of a square CSR block (csr/diag.h): hypre_CSRMatrixExtractDiagonalDevice's
 * d[i] = f(a_ii) (op 0-4: hypre's types a_ii, |a_ii|, 1/a_ii, 1/sqrt(a_ii), 1/sqrt(|a_ii|), the
 * last three 0 where a_ii is 0; 0 for a row without its diagonal), or, op 5,
 * hypre_CSRMatrixMoveDiagFirstDevice's move of each row's diagonal entry to the row's front
 * (d not used; ja and a written). */
typedef struct amgt_csr_diag
{
   int32_t        nrows;
   int64_t        nnz; /* the block's entries: sizes the groups of lanes */
   const int32_t* ia;
   int32_t*       ja;  /* written by op 5 only */
   double*        a;   /* written by op 5 only */
   int32_t        op;
   double*        d;   /* nrows, ops 0-4 */
} amgt_csr_diag;

/* The copy of a truncated interpolation matrix (interp/truncation.h): row i's first
 * (*_i_new[i+1] - *_i_new[i]) entries, from *_i[i] on, to *_i_new[i] on, in both blocks. */
typedef struct amgt_trunc_copy
{
   int32_t        nrows;
   int64_t        nnz_new; /* both blocks' entries kept: sizes the groups of lanes */
   const int32_t* diag_i;
   const int32_t* diag_j;
   const double*  diag_a;
   const int32_t* offd_i;
   const int32_t* offd_j;
   const double*  offd_a;
   const int32_t* diag_i_new;
   int32_t*       diag_j_new;
   double*        diag_a_new;
   const int32_t* offd_i_new;
   int32_t*       offd_j_new;
   double*        offd_a_new;
} amgt_trunc_copy;

#endif /* AMGT_SETUP_KERNELS_H */
