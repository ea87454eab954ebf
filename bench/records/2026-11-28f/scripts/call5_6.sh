#!/bin/bash
# calls 5 and 6 (build-gpu of call 3 kept, the machine warm): the setup kernels of laplace27
# n=200 and systems3 n=126 under Nsight Compute, the kernels of the survey only
NCU_KERNELS='twiaff|CreateS|PMIS|IndepSet|RowSum|Trunc|weak_rowsums|ExtractDiag|MoveDiag|DeviceSelectSweep|spgemm|SpGemm' timeout 230 bench/setup_kernels_ncu.sh build-gpu $OUT/ncu "laplace27-n200:--problem laplace27 --n 200" > /tmp/ncu.log 2>&1; echo rc $?; tail -20 /tmp/ncu.log; rm -f $OUT/ncu/*.ncu-rep
NCU_KERNELS='twiaff|CreateS|PMIS|IndepSet|RowSum|Trunc|weak_rowsums|ExtractDiag|MoveDiag|DeviceSelectSweep|spgemm|SpGemm' timeout 160 bench/setup_kernels_ncu.sh build-gpu $OUT/ncu "systems3-n126:--problem systems3 --n 126" > /tmp/ncu.log 2>&1; echo rc $?; tail -20 /tmp/ncu.log; rm -f $OUT/ncu/*.ncu-rep
