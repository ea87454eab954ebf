// The one place that decides, per matrix and per product, who runs it and how.
//
// A newcomer's map of the decisions:
//   planner (this file, planner.cpp)  who runs an SpMV or a SpGEMM: stock hypre, the plugin
//                                     on the host, the plugin on the device; in which precision
//                                     (choose_for, spmv_choice: precision/policy.h applied to the
//                                     matrix's values, the level floors of AMGT=auto); the
//                                     fallback reason counted when hypre runs it; the layout of
//                                     a device copy that SpMVs read (plan_layout, from the rule of
//                                     rows/rows.h and a device fill sample); whether a device
//                                     SpMV owner is raced (AMGT_SPMV=race) and what an earlier
//                                     race in this process already decided (race_memory.h);
//                                     the precision a product is recomputed in after NaN/Inf;
//                                     what the end-of-setup survey measures for all matrices at
//                                     once (survey_wants, AMGT_SETUP_SURVEY).
//   dispatch.cpp                      asks the planner and calls the executor its plan names.
//   backend_host.cpp                  host executor: runs a plan on the CPU reference kernels.
//   backend_device.cpp                device executor: runs a plan on the CUDA kernels; it also
//                                     owns the SpMV race itself. The other measurements that
//                                     need the device (value statistics, the fill sample, the
//                                     survey) are in backend_device_measure.cpp; the planner
//                                     reads both through backend.h.
//   matrix_state.h                    what the plan and the executors keep per matrix.
// The executors do not call each other; the device executor asks the planner only where a
// decision arises inside its own work (the layout when it builds a copy, the plan of the
// setup-time preparation it times).
#pragma once

#include "backend.h"

#include "rows/rows.h" // Layout

namespace amgt::glue {

enum class Executor
{
   stock,  // hypre's own kernels (the hook returns 0); reason says why
   host,   // backend_host.cpp
   device  // backend_device.cpp
};

// One SpMV: who runs it, in which storage precision (and scaling), and why not the plugin.
struct SpmvPlan
{
   Executor        who = Executor::stock;
   PrecisionChoice choice{};
   // who == stock: the fallback reason counted in the statistics (nullptr: nothing to count,
   // as for a device copy that the preparation does not make)
   const char*     reason = nullptr;
   // who == device: the matrix's owner is not decided by rule but by timing both kernels once
   // per device copy (AMGT_SPMV=race with nothing remembered for this matrix)
   bool            race = false;
   // who == device: an fp64 matvec of a matrix whose V-cycle copy is in a lower precision
   // (outside the cycle, or a standalone solve's later cycle): the row-wise kernel reads
   // hypre's own arrays in place (nothing converted, nothing cached); reason says which rule
   bool            lent = false;
};

// One SpGEMM: who, in which precision (the higher of the operands' own), whether its output
// is checked for NaN/Inf (then recomputed in after_nonfinite_product's precision), and why not
// the plugin.
struct SpgemmPlan
{
   Executor    who          = Executor::stock;
   Precision   precision    = Precision::fp64;
   bool        check_finite = false;
   const char* reason       = nullptr;
   // who == device: the row-wise CSR SpGEMM on hypre's arrays (always fp64; device_spgemm_rows)
   // instead of the mBSR product: AMGT_SPGEMM=rows, or auto's rule (csr_spgemm::rows_kernel_wins)
   bool        rows         = false;
   bool        lean         = false; // rows in csr_spgemm's lean design (AMGT_SPGEMM=lean, few rows)
};

// The layout of a device copy that only SpMVs read, and how the row-wise one is built.
struct LayoutPlan
{
   Layout layout = Layout::mbsr;
   bool   narrow = true;  // 16-bit column offsets tried
   double row_cv = 0.0;   // the sampled rows' variation (lanes per row)
   // mbsr: packed entries in CSR order (mbsr_device.h), the conversion that moves no values
   // (and ranks no tiles): the rule's pick (LayoutChoice::entry_order: fp64, entries kernel),
   // not AMGT_LAYOUT=mbsr
   bool   entry_order = false;
};

// The SpMV hook: A's matvec.
SpmvPlan plan_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A);

// The SpGEMM hook: A*B on `level`.
SpgemmPlan plan_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                       MatrixState& state_b, const amgt_csr& B);

// A device product the plugin left to hypre (hypre's device SpGEMM, asked from patches/0003):
// whether hypre runs it in its binned mode. AMGT_SPGEMM=auto only, by csr_spgemm's rule
// (hypre_binned_wins: many rows with short products); otherwise hypre's mode as the
// application set it (stock hypre's default: unbinned).
bool stock_spgemm_binned(const Context& ctx, int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b);

// The end of a setup (amgt_glue_matrix_prepare, device arrays): whether a device copy is made
// at all (AMGT_SPMV=stock makes none), and then the plan of its SpMVs: who == device means
// convert it now (and race it, with race); stock means leave it to hypre (no reason counted:
// nothing ran).
bool device_copy_wanted(const Context& ctx);
SpmvPlan plan_device_copy(const Context& ctx, MatrixState& state, const amgt_csr& A);

// The layout of a new SpMV-only device copy of `a` in precision p (AMGT_LAYOUT, the role, or
// choose_layout on a device fill sample); records the sampled fill in state.device_shape.
LayoutPlan plan_layout(const Context& ctx, MatrixState& state, const amgt_csr& a, Precision p);

// The storage precision of a matrix for one use at `level`. Not auto: the schedule's entry,
// unscaled. AMGT=auto: the policy (precision/policy.h) applied to the statistics of the
// matrix's values, computed once per arrays and setup epoch (on the device for device
// arrays: setup only, it synchronises). for_product: an operand of a SpGEMM, whose floor is
// at least fp32 and which is never scaled (product_precision).
PrecisionChoice choose_for(const Context& ctx, MatrixState& state, const amgt_csr& a, int level,
                           bool for_product);

// The storage precision of a matrix's SpMV: choose_for(..., false), recorded in the
// statistics (with a note under AMGT_STATS giving the facts behind it), made once per arrays,
// setup epoch and level-floor generation and then served from the state, so that a
// solve-loop call costs two key comparisons (no lock, no string).
PrecisionChoice spmv_choice(const Context& ctx, MatrixState& state, const amgt_csr& a, int level);

// The end of a setup surveys every device matrix of the hierarchy before preparing any
// (amgt_glue_matrices_survey): what this matrix lacks of what its preparation will measure
// (choose_for's plain value statistics under auto, plan_layout's fill sample), so that the
// device takes them all with one read-back (backend.h device_survey) instead of one or two a
// matrix. Nothing for a host matrix, one already prepared, or AMGT_SPMV=stock.
SurveyItem survey_wants(const Context& ctx, MatrixState& state, const amgt_csr& a);

// AMGT=auto: a product computed in p on `level` held NaN/Inf. Says so once, counts the
// fallback "non-finite-product" and returns the precision to recompute it in.
Precision after_nonfinite_product(const Context& ctx, int level, Precision p);

// AMGT_SPMV=auto and race: matrices of fewer than AMGT_SMALL_MATRIX_ENTRIES entries, called
// from hypre (which can run them itself), go to hypre's own kernel without a conversion or a
// race. The floor for a matrix of no hierarchy level; tagged ones go by the cost model.
bool too_small_for_plugin(const Context& ctx, const amgt_csr& a);

// AMGT_SPMV=auto and race, a device matrix hypre can run itself: whether the cost model
// (cost_model.h) leaves it to hypre, decided once per arrays and setup and kept in the state.
// A level's operator by the table (its schedule's precision, the matvecs its level served
// after the previous setup); its P, R and off-diagonal blocks follow it. Without a model
// (ctx.model) or a level, too_small_for_plugin. serving: called for a matvec hypre is about
// to serve, which the re-check counts (cost::repaid: the matrix is taken once its matvecs
// would have repaid the one-time work). AMGT_STATS notes each decision.
bool model_declines(const Context& ctx, MatrixState& state, const amgt_csr& a, bool serving);

// AMGT_SPMV=race: whether an earlier race in this process sent a matrix like this one to
// stock hypre (then it is neither converted nor raced; a note says so). Consulted once per
// arrays and SpMV choice; a remembered plugin win is kept in state.remembered_plugin.
bool remembered_for_stock(const Context& ctx, MatrixState& state, const amgt_csr& a,
                          const PrecisionChoice& choice);

} // namespace amgt::glue
