// MPI for the driver: the real one, or hypre's stubs when hypre is built without MPI
// (HYPRE_SEQUENTIAL), where hypre's internal utilities header maps MPI_* to hypre_MPI_*.
#pragma once

#include "HYPRE_config.h"
#include "HYPRE_utilities.h"
#if defined(HYPRE_SEQUENTIAL)
#include "_hypre_utilities.h"
#endif
