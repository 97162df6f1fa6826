#include "verify/scenarios/teardown_world.hpp"

#include <memory>
#include <vector>

void layout_figures(const layout_vma* vmas, int nv, const layout_file* files, int nf,
                    std::map<std::string, long>* out) {
  for (teardown_variant variant : {teardown_variant::batched, teardown_variant::unbatched}) {
    plain::teardown_counts counts;
    std::vector<plain::address_space> mappings(2, plain::address_space{&counts});
    std::vector<plain::file> pf(nf);
    for (int i = 0; i < nf; i++) pf[i].f_mapping = &mappings[files[i].mapping];
    std::vector<plain::vm_area_struct> pv(nv);
    std::vector<plain::vm_area_struct*> order;
    for (int i = 0; i < nv; i++) {
      pv[i] = {vmas[i].start, vmas[i].end, vmas[i].file ? &pf[vmas[i].file - 1] : nullptr, vmas[i].hugetlb};
      order.push_back(&pv[i]);
    }
    plain::teardown(order, variant);
    (*out)[variant == teardown_variant::batched ? "write_locks_batched" : "write_locks_unbatched"] = counts.write_locks;
  }
}
