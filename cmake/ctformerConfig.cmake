# find_package(ctformer CONFIG REQUIRED): the ctformer::ctformer library (headers and run time), the generator
# (ctformer::gen) and ctformer_add_model().
include(CMakeFindDependencyMacro)
find_dependency(Boost 1.74 CONFIG)
find_dependency(hwy CONFIG)
find_dependency(nlohmann_json 3 CONFIG)
find_dependency(OpenMP)
include("${CMAKE_CURRENT_LIST_DIR}/ctformerTargets.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/ctformer_add_model.cmake")
