# With -DPROVESIM_MPI=ON only: sweep and plan under `mpirun -n 2 --oversubscribe` give the
# bytes of one process, and a rank that cannot read the scenario is reported with its
# points, which --resume completes (tests/test_mpi.sh; mpirun runs as root in CI).
if(PROVESIM_MPI)
  add_test(NAME test_mpi COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi.sh $<TARGET_FILE:provesim> ${PROJECT_SOURCE_DIR}
                                 ${MPIEXEC_EXECUTABLE})
  set_tests_properties(test_mpi PROPERTIES ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
                                           TIMEOUT 300)
endif()
