/*
 * The functions patches/0002-amgt-hooks.patch calls from inside hypre. Implemented in
 * amgt_hypre.c, which is compiled as part of libHYPRE. Included by the patched hypre files
 * after their own headers, so the hypre types are known where they are needed.
 */
#ifndef AMGT_HYPRE_HOOKS_H
#define AMGT_HYPRE_HOOKS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The end of HYPRE_Initialize: the plugin may start loading its GPU kernels beside the
 * application (AMGT_PRELOAD). */
void hypre_AMGTInitialize(void);
void hypre_AMGTSetupBegin(void);
void hypre_AMGTSetSetupLevel(HYPRE_Int level);
/* Around one BoomerAMG V-cycle of hypre_BoomerAMGSolve, index = the cycle's number in that
 * solve (0 first): inside it the level schedule applies. */
void hypre_AMGTCycleBegin(HYPRE_Int index);
void hypre_AMGTCycleEnd(void);
void hypre_AMGTFinalize(void);
/* A measurement facility, called by no hypre code: between two solvers' lifetimes (no setup,
 * solve or hierarchy of an AMGT mode alive), on = 1 makes every hook answer as under AMGT
 * unset (hypre's own code, the application's kernel choices, nothing counted) until on = 0.
 * Lets one process time stock hypre beside an AMGT mode in the same state of the machine
 * (amgt-solve --beside-stock). The plugin's releases and HYPRE_Finalize are not affected. */
void hypre_AMGTSuspend(HYPRE_Int on);

/* Extended+i interpolation's F-F weights (patches/0007, par_lr_interp_device.c), in place of
 * hypreGPUKernel_compute_twiaff_w, with its arguments (device arrays; ext_* NULL on one rank)
 * and the two blocks' entry counts. Returns 1 when computed on hypre's compute stream, 0 to
 * let hypre's kernel compute them (AMGT off or suspended, AMGT_SETUP_KERNELS off). */
HYPRE_Int hypre_AMGTInterpTwiaff(HYPRE_Int nrows, HYPRE_BigInt first_index, HYPRE_Int diag_nnz,
                                 HYPRE_Int *diag_i, HYPRE_Int *diag_j, HYPRE_Complex *diag_a,
                                 HYPRE_Complex *diag_old, HYPRE_Int offd_nnz, HYPRE_Int *offd_i,
                                 HYPRE_Int *offd_j, HYPRE_Complex *offd_a, HYPRE_Int *ext_i,
                                 HYPRE_BigInt *ext_j, HYPRE_Complex *ext_a, HYPRE_Complex *rsW,
                                 HYPRE_Complex *rsFC, HYPRE_Complex *rsFC_offd);

/* The counting pass of BoomerAMG's strength of connection (patches/0007,
 * par_strength_device.c), in place of hypre_BoomerAMGCreateS_rowcount, with its arguments and
 * the two blocks' entry counts. Returns 1 when computed on hypre's compute stream, 0 to let
 * hypre's kernel count (AMGT off or suspended, AMGT_SETUP_KERNELS off). */
HYPRE_Int hypre_AMGTStrengthRowcount(HYPRE_Int nrows, HYPRE_Real max_row_sum, HYPRE_Real strength_threshold,
                                     HYPRE_Int diag_nnz, HYPRE_Real *diag_a, HYPRE_Int *diag_i,
                                     HYPRE_Int *diag_j, HYPRE_Int offd_nnz, HYPRE_Real *offd_a,
                                     HYPRE_Int *offd_i, HYPRE_Int *offd_j, HYPRE_Int *s_diag_j,
                                     HYPRE_Int *s_offd_j, HYPRE_Int num_functions, HYPRE_Int *dof_func,
                                     HYPRE_Int *dof_func_offd, HYPRE_Int *js_diag, HYPRE_Int *js_offd);

/* PMIS's per-sweep kernels (patches/0007, par_indepset_device.c and par_coarsen_device.c), in
 * place of hypreGPUKernel_IndepSetMain (which = 0; markers = IS_marker_diag/offd) and
 * hypreGPUKernel_PMISCoarseningUpdateCF (which = 1; markers = CF_marker_diag/offd, measure_diag
 * rewritten), with the strength matrix's arrays, its rows and entry counts. Returns 1 when
 * computed on hypre's compute stream, 0 to let hypre's kernel run. */
HYPRE_Int hypre_AMGTPmis(HYPRE_Int which, HYPRE_Int graph_size, HYPRE_Int *graph, HYPRE_Int nrows,
                         HYPRE_Int s_diag_nnz, HYPRE_Int *s_diag_i, HYPRE_Int *s_diag_j,
                         HYPRE_Int s_offd_nnz, HYPRE_Int *s_offd_i, HYPRE_Int *s_offd_j,
                         HYPRE_Real *measure_diag, HYPRE_Real *measure_offd, HYPRE_Int *markers_diag,
                         HYPRE_Int *markers_offd, HYPRE_Int temp_mark);

/* A row sum of one CSR block (patches/0008, csr_matop_device.c), in place of
 * hypreGPUKernel_CSRRowSum in hypre_CSRMatrixComputeRowSumDevice, with its arguments (device
 * arrays; type 0 sum, 1 sum of magnitudes, 2 of squares; set 1 or add 0), the block's columns
 * (0: no entries) and its entry count (a size hint). Returns 1 when computed on hypre's
 * compute stream, 0 to let hypre's kernel sum (AMGT off or suspended, AMGT_SETUP_KERNELS off,
 * type 2). */
HYPRE_Int hypre_AMGTRowSum(HYPRE_Int nrows, HYPRE_Int ncols, HYPRE_Int nnz, HYPRE_Int *ia, HYPRE_Int *ja,
                           HYPRE_Complex *a, HYPRE_Int *CF_i, HYPRE_Int *CF_j, HYPRE_Complex *row_sum,
                           HYPRE_Int type, HYPRE_Complex scal, HYPRE_Int set);

/* Extended+i's weak row sums (patches/0008, par_lr_interp_device.c), in place of
 * hypreGPUKernel_compute_weak_rowsums in hypre_BoomerAMGBuildExtPIInterpDevice, with its
 * arguments and the two blocks' entry counts. Returns 1 when computed on hypre's compute
 * stream, 0 to let hypre's kernel sum. */
HYPRE_Int hypre_AMGTWeakRowSums(HYPRE_Int nrows, HYPRE_Int has_offd, HYPRE_Int diag_nnz, HYPRE_Int offd_nnz,
                                HYPRE_Int *CF_marker, HYPRE_Int *diag_i, HYPRE_Complex *diag_a,
                                HYPRE_Int *soc_diag_j, HYPRE_Int *offd_i, HYPRE_Complex *offd_a,
                                HYPRE_Int *soc_offd_j, HYPRE_Real *rs, HYPRE_Int flag);

/* The diagonal of a CSR block (patches/0009, csr_matop_device.c): in place of
 * hypreGPUKernel_CSRExtractDiag in hypre_CSRMatrixExtractDiagonalDevice (op = hypre's type 0-4,
 * d written) and of hypreGPUKernel_CSRMoveDiagFirst in hypre_CSRMatrixMoveDiagFirstDevice (op 5,
 * ja and a written, d null), with the block's entry count (a size hint). Returns 1 when
 * computed on hypre's compute stream, 0 to let hypre's kernel run. */
HYPRE_Int hypre_AMGTCsrDiag(HYPRE_Int nrows, HYPRE_Int nnz, HYPRE_Int *ia, HYPRE_Int *ja, HYPRE_Complex *a,
                            HYPRE_Complex *d, HYPRE_Int op);

/* The copy of a truncated interpolation matrix (patches/0008, par_interp_trunc_device.c), in
 * place of hypreGPUKernel_InterpTruncationPass2_v1, with its arguments and the entries kept.
 * Returns 1 when computed on hypre's compute stream, 0 to let hypre's kernel copy. */
HYPRE_Int hypre_AMGTTruncCopy(HYPRE_Int nrows, HYPRE_Int nnz_new, HYPRE_Int *diag_i, HYPRE_Int *diag_j,
                              HYPRE_Real *diag_a, HYPRE_Int *offd_i, HYPRE_Int *offd_j, HYPRE_Real *offd_a,
                              HYPRE_Int *diag_i_new, HYPRE_Int *diag_j_new, HYPRE_Real *diag_a_new,
                              HYPRE_Int *offd_i_new, HYPRE_Int *offd_j_new, HYPRE_Real *offd_a_new);

#if defined(hypre_MV_HEADER) /* seq_mv.h: hypre_CSRMatrix, hypre_Vector */
/* y = alpha*op(A)*x + beta*b; returns 1 if computed, 0 to let hypre compute it. */
HYPRE_Int hypre_AMGTMatvec(HYPRE_Int trans, HYPRE_Complex alpha, hypre_CSRMatrix *A,
                           hypre_Vector *x, HYPRE_Complex beta, hypre_Vector *b,
                           hypre_Vector *y, HYPRE_Int offset);
/* *C_ptr = A*B; returns 1 if computed, 0 to let hypre compute it. */
HYPRE_Int hypre_AMGTSpGemm(hypre_CSRMatrix *A, hypre_CSRMatrix *B, hypre_CSRMatrix **C_ptr);
void      hypre_AMGTCSRMatrixRelease(hypre_CSRMatrix *A);
/* For a product / matvec that hypre computes itself: 1 for the vendor's kernel, 0 for
 * hypre's own. AMGT off: app_choice unchanged; under an AMGT mode the faster by rule. A
 * product on hypre's own kernel: *binned set to 1 where hypre's binned mode is to run it
 * (left as it was otherwise). */
HYPRE_Int hypre_AMGTStockSpGemmUseVendor(hypre_CSRMatrix *A, hypre_CSRMatrix *B,
                                         HYPRE_Int app_choice, HYPRE_Int *binned);
HYPRE_Int hypre_AMGTStockMatvecUseVendor(hypre_CSRMatrix *A, HYPRE_Int app_choice);
#endif

#if defined(hypre_PARCSR_MV_HEADER)
void hypre_AMGTTagLevels(hypre_ParCSRMatrix **A_array, hypre_ParCSRMatrix **P_array,
                         hypre_ParCSRMatrix **R_array, HYPRE_Int num_levels);
/* BoomerAMG's setup has finished level `level` (its A, P and R are final; the next level is
 * being built): its matrices are tagged and their preparation starts beside the setup. */
void hypre_AMGTLevelDone(hypre_ParCSRMatrix **A_array, hypre_ParCSRMatrix **P_array,
                         hypre_ParCSRMatrix **R_array, HYPRE_Int level);
/* AMGT_RESETUP (patches/0006). At setup entry, before the old hierarchy is freed: 1 when this
 * setup keeps it (A has the structure it was built from, the settings are covered: supported,
 * and every rank agrees), else 0; *reason and *fingerprint go to hypre_AMGTResetupEnd. */
HYPRE_Int hypre_AMGTResetupBegin(hypre_ParCSRMatrix *A, hypre_ParCSRMatrix **A_array,
                                 HYPRE_Int old_num_levels, HYPRE_Int supported, HYPRE_Int *reason,
                                 unsigned long long *fingerprint);
/* A re-setup's coarse operators: A_array[l+1] = P_l^T A_l P_l for every level, in place on the
 * plugin's plans, or by hypre's own RAP (the operator replaced) where the plugin cannot. */
void hypre_AMGTResetupGalerkin(hypre_ParCSRMatrix **A_array, hypre_ParCSRMatrix **P_array,
                               HYPRE_Int num_levels, HYPRE_Int modular_matmat,
                               HYPRE_Int keep_transpose);
/* The end of a setup: a full one records the fingerprint in its new hierarchy. */
void hypre_AMGTResetupEnd(hypre_ParCSRMatrix **A_array, HYPRE_Int num_levels, HYPRE_Int reason,
                          unsigned long long fingerprint);
/* A BoomerAMG solve of the hierarchy of A_array made `cycles` V-cycles. */
void hypre_AMGTSolveCycles(hypre_ParCSRMatrix **A_array, HYPRE_Int num_levels, HYPRE_Int cycles);
/* The values of A changed in place (IJ Assemble, SetConstantValues): drop cached conversions;
 * the process's first such matrix also decides whether the preload goes on (AMGT_PRELOAD). */
void hypre_AMGTParCSRMatrixValuesChanged(hypre_ParCSRMatrix *A);
/* hypre's l1-Jacobi sweep (hypre_BoomerAMGRelax7Jacobi): u += w*(f - A*u) ./ l1_norms, Vtemp
 * the work vector. Returns 1 when swept (without hypre's copy f -> Vtemp), 0 to let hypre's
 * own code sweep (AMGT off, C/F-marked points, vectors it does not take). */
HYPRE_Int hypre_AMGTRelaxJacobi(hypre_ParCSRMatrix *A, hypre_ParVector *f, HYPRE_Int relax_points,
                                HYPRE_Real relax_weight, HYPRE_Real *l1_norms, hypre_ParVector *u,
                                hypre_ParVector *Vtemp);
#endif

#ifdef __cplusplus
}
#endif

#endif /* AMGT_HYPRE_HOOKS_H */
