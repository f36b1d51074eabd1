#pragma once
// Work on Qt's thread pool whose result reaches the GUI thread through a std::mutex.
//
// Why not QFutureWatcher<T>::result(): Debian's Qt is not built for ThreadSanitizer, and the
// hand-off inside QFutureInterface (a futex) is invisible to it, so every read of a result looked
// like a race in .ci/check-tsan. A std::mutex it sees; Qt's future here only says "finished".
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace ncp2::gui {

template <class T>
class BackgroundTask {
 public:
  // Starts `work` (a callable returning T) on the thread pool; watcher() signals finished() when
  // it is done. A task started before and not taken yet is dropped (its result with it).
  template <class F>
  void start(F work) {
    auto box = std::make_shared<Box>();
    box_ = box;
    watcher_.setFuture(QtConcurrent::run([box, work = std::move(work)]() mutable { box->put(work()); }));
  }
  // The last started task's result, once: after finished() (or wait()).
  T take() { return box_ ? box_->take() : T{}; }
  void wait() { watcher_.waitForFinished(); }
  [[nodiscard]] bool running() const { return watcher_.isRunning(); }
  [[nodiscard]] QFutureWatcher<void>& watcher() { return watcher_; }

 private:
  struct Box {
    std::mutex mutex;
    std::optional<T> value;
    void put(T v) {
      const std::lock_guard lock(mutex);
      value = std::move(v);
    }
    T take() {
      const std::lock_guard lock(mutex);
      if (!value) return T{};
      T v = std::move(*value);
      value.reset();
      return v;
    }
  };
  std::shared_ptr<Box> box_;
  QFutureWatcher<void> watcher_;
};

}  // namespace ncp2::gui
