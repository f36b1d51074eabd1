// Reads the section with libelf from a copy of the whole file in memory (elf_memory): every
// offset libelf or we follow is checked against the bytes actually read, so a truncated or corrupt
// file is a message, never a crash.
#include "tmk/host/fiber_object.hpp"

#include <gelf.h>
#include <libelf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "tmk/fiber_abi.hpp"

namespace ncp2::tmk {
namespace {

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

FiberObject failure(const std::string& path, const std::string& why) { return {{}, 0, path + ": " + why}; }

FiberObject unreadable(const std::string& path, const std::string& why) {
  return failure(path, "unreadable as a program built by ncp2-cc (" + why + ")");
}

bool read_whole_file(const std::string& path, std::vector<char>& contents, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = errno == ENOENT ? "no such file" : std::string("cannot open it: ") + std::strerror(errno);
    return false;
  }
  contents.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    error = "cannot read it";
    return false;
  }
  return true;
}

std::string libelf_error() {
  const char* text = elf_errmsg(-1);
  return text ? text : "no reason given";
}

bool starts_as_elf(const void* bytes, std::size_t size) {
  return size >= SELFMAG && std::memcmp(bytes, ELFMAG, SELFMAG) == 0;
}

// The section's header, or false when the file has none of that name (`names`: the index of the
// section names' section).
bool find_section(Elf* elf, std::size_t names, GElf_Shdr& found) {
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (!gelf_getshdr(section, &header)) continue;
    const char* name = elf_strptr(elf, names, header.sh_name);
    if (name && std::strcmp(name, kFiberSection) == 0) {
      found = header;
      return true;
    }
  }
  return false;
}

// The end of the last loadable segment of the shared object `bytes` (all of it when its program
// headers cannot be read).
std::size_t loaded_extent(std::vector<std::byte>& bytes) {
  const ElfHandle elf(elf_memory(reinterpret_cast<char*>(bytes.data()), bytes.size()));
  std::size_t headers = 0;
  if (!elf || elf_getphdrnum(elf.get(), &headers) != 0) return bytes.size();
  std::size_t end = 0;
  for (std::size_t i = 0; i < headers; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf.get(), static_cast<int>(i), &ph) || ph.p_offset + ph.p_filesz > bytes.size())
      return bytes.size();
    if (ph.p_offset + ph.p_filesz > end) end = ph.p_offset + ph.p_filesz;
  }
  return end == 0 ? bytes.size() : end;
}

}  // namespace

FiberObject read_fiber_object(const std::string& path) {
  std::vector<char> contents;
  std::string error;
  if (!read_whole_file(path, contents, error)) return failure(path, error);
  if (!starts_as_elf(contents.data(), contents.size())) return failure(path, "not an ELF executable");
  elf_version(EV_CURRENT);
  const ElfHandle elf(elf_memory(contents.data(), contents.size()));
  GElf_Ehdr header;
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF || !gelf_getehdr(elf.get(), &header))
    return unreadable(path, "truncated or corrupt: " + libelf_error());
  if (header.e_type != ET_EXEC && header.e_type != ET_DYN)
    return failure(path, "not an ELF executable (an object file, a core dump?)");
  std::size_t names = 0;
  if (elf_getshdrstrndx(elf.get(), &names) != 0) return unreadable(path, libelf_error());
  GElf_Shdr section;
  if (!find_section(elf.get(), names, section))
    return failure(path,
                   "built without the fiber runner's object (rebuild it with this ncp2-cc; ncp2-cc "
                   "--ncp2-no-fiber leaves it out)");
  if (section.sh_type != SHT_PROGBITS || section.sh_offset > contents.size() ||
      section.sh_size > contents.size() - section.sh_offset)
    return unreadable(path, std::string("its section ") + kFiberSection + " lies outside the file");
  const auto* begin = reinterpret_cast<const std::byte*>(contents.data()) + section.sh_offset;
  if (!starts_as_elf(begin, section.sh_size))
    return unreadable(path, std::string("its section ") + kFiberSection + " holds no shared object");
  FiberObject object{{begin, begin + section.sh_size}, 0, {}};
  object.loaded_bytes = loaded_extent(object.bytes);
  return object;
}

}  // namespace ncp2::tmk
