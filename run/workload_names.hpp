#pragma once
// The workloads' words as the run pipeline uses them: run/ (namespace ncp2::run) runs what
// workloads/ (namespace ncp2::workloads) describes.
#include "workloads/registry.hpp"
#include "workloads/workload.hpp"

namespace ncp2::run {

using workloads::all_workloads;
using workloads::find_workload;
using workloads::Instance;
using workloads::Params;
using workloads::ParamType;
using workloads::ParamValue;
using workloads::RunLimitReached;
using workloads::Workload;
using workloads::WorkloadError;

}  // namespace ncp2::run
