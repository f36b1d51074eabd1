#pragma once
// The address range a loaded object's segments cover: a copy of a program under the fiber runner,
// seen from inside (the runtime: which addresses are the copy's own, tmk/runtime/fiber_mode.cpp)
// and from the emulator (whose code a timer tick interrupted, tmk/host/node_fiber.cpp). No C++
// library: the runtime linked into C programs includes it.
#include <link.h>

#include <cstddef>
#include <cstdint>

namespace ncp2::tmk {

struct LoadedImage {
  std::uintptr_t base = 0;   // the load address (dl_phdr_info::dlpi_addr, link_map::l_addr)
  std::uintptr_t begin = 0;  // the hull of its PT_LOAD segments, [begin, end)
  std::uintptr_t end = 0;
  [[nodiscard]] bool contains(std::uintptr_t a) const { return a >= begin && a < end; }
};

// The segments' hull of the object loaded at `base`; an empty image when none is.
inline LoadedImage loaded_image(std::uintptr_t base) {
  LoadedImage image{base, 0, 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t /*size*/, void* data) {
        auto* found = static_cast<LoadedImage*>(data);
        if (info->dlpi_addr != found->base) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (found->begin == 0 || begin < found->begin) found->begin = begin;
          if (begin + ph.p_memsz > found->end) found->end = begin + ph.p_memsz;
        }
        return 1;
      },
      &image);
  return image;
}

}  // namespace ncp2::tmk
