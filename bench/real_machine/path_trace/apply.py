#!/usr/bin/env python3
# Inserts the path trace into a scratch checkout (run from its top): a mark at each step of a page
# miss (README.md). Never commit its result.
import os, shutil
shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'trace.hpp'), 'real_machine/trace_tmp.hpp')
def edit(p, pairs):
    s=open(p).read()
    for a,b in pairs:
        assert a in s, (p,a)
        s=s.replace(a,b,1)
    open(p,'w').write(s)
inc=('#include "real_machine/agent_internal.hpp"','#include "real_machine/agent_internal.hpp"\n#include "real_machine/trace_tmp.hpp"')
edit('real_machine/agent_operations.cpp',[inc,
 ('void NodeAgent::fault(PageId page, bool write) {\n','void NodeAgent::fault(PageId page, bool write) {\n  trace::mark("L1 fault in");\n'),
 ('  transport_.send(lrc::index(home), Tag::PageRequest, std::move(w).take());\n','  trace::mark("L2 send req");\n  transport_.send(lrc::index(home), Tag::PageRequest, std::move(w).take());\n'),
 ('''  WireReader r(m.body);
  r.u32();
  const auto bytes = r.bytes();''','''  trace::mark("L3 got reply");
  WireReader r(m.body);
  r.u32();
  const auto bytes = r.bytes();''')])
edit('real_machine/agent_service.cpp',[inc,
 ('''void NodeAgent::on_page_request(const Message& m) {
  const double start = now_ns();''','''void NodeAgent::on_page_request(const Message& m) {
  trace::mark("S1 page req");
  const double start = now_ns();'''),
 ('''  transport_.send(m.from, Tag::PageReply, std::move(w).take());
}''','''  transport_.send(m.from, Tag::PageReply, std::move(w).take());
  trace::mark("S2 sent reply");
}'''),
 ('''      if (std::optional<Message> m = transport_.poll()) {''','''      if (std::optional<Message> m = transport_.poll()) {
        if (m->tag == Tag::PageReply) trace::mark("S3 reply arrived");'''),
 ('''      if (awaiting_.load(std::memory_order_seq_cst) == 0) transport_.wait_for_traffic(self() == 0 ? 10 : 100);''','''      trace::mark("SZ sleep");
      if (awaiting_.load(std::memory_order_seq_cst) == 0) transport_.wait_for_traffic(self() == 0 ? 10 : 100);
      trace::mark("SW woke");''')])
edit('real_machine/agent_program.cpp',[inc,
 ('''  const double picked = now_ns();''','''  trace::mark("L0 picked");
  const double picked = now_ns();'''),
 ('''  reply_protections();
  profile_.replied(now_ns());''','''  reply_protections();
  trace::mark("L4 replied");
  profile_.replied(now_ns());'''),
 ('''  record_.add(0, Category::CPComp, "none", static_cast<double>(cp_busy_ns_.load()));
}''','''  record_.add(0, Category::CPComp, "none", static_cast<double>(cp_busy_ns_.load()));
  trace::dump(self());
}''')])
