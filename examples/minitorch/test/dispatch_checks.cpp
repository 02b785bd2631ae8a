// The generated registration must have filled the dispatcher table with
// exactly what ops.toml declares: a kernel for every listed backend, none
// for the others.
#include <string>

#include "checks.h"
#include "mt/core/Dispatcher.h"
#include "mt/ops/op_list.h"

namespace selftest {

void run_dispatch_checks(Report& report) {
  const mt::Dispatcher& dispatcher = mt::Dispatcher::get();
  for (const mt::ops::OpInfo& op : mt::ops::kOpList) {
    const bool cpu = dispatcher.has_kernel(op.name, mt::DeviceType::CPU);
    const bool cuda = dispatcher.has_kernel(op.name, mt::DeviceType::CUDA);
    std::string note = std::string("cpu ") + (cpu ? "yes" : "no") + ", cuda " + (cuda ? "yes" : "no");
    if (cpu != op.cpu || cuda != op.cuda) {
      note += std::string(" (ops.toml: cpu ") + (op.cpu ? "yes" : "no") + ", cuda " +
              (op.cuda ? "yes" : "no") + ")";
    }
    report.expect("reg", op.name, "kernels match ops.toml", cpu == op.cpu && cuda == op.cuda, note);
  }
  report.expect("reg", "*", "no kernels beyond ops.toml",
                dispatcher.operators().size() == mt::ops::kOpList.size(),
                std::to_string(dispatcher.operators().size()) + " ops registered, " +
                    std::to_string(mt::ops::kOpList.size()) + " declared");
}

}  // namespace selftest
