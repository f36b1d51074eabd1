#pragma once
// Work on a thread of its own whose result reaches the GUI thread in a way ThreadSanitizer sees
// whole.
//
// Why not QtConcurrent and QFutureWatcher<T>: Debian's Qt is not built for ThreadSanitizer, and its
// hand-offs (QThreadPool's queue, QFutureInterface's result store, both futexes) are invisible to
// it, while the code on both sides of them — Qt's templates, our lambdas — is instrumented: every
// task looked like a race in .ci/check-tsan. Here a std::thread starts the work (pthread_create is
// seen), the result goes through a std::mutex (seen), and the worker only emits a signal with no
// arguments (Qt's own queued delivery; nothing of ours crosses it), after which the GUI thread
// takes the result under the mutex and calls `done`, a callable it stored itself.
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <QObject>

namespace ncp2::gui {

// The worker's "finished" (a QObject: a class template cannot be one).
class TaskSignal : public QObject {
  Q_OBJECT
 signals:
  void finished();
};

template <class T>
class BackgroundTask {
 public:
  BackgroundTask() {
    QObject::connect(
        &signal_, &TaskSignal::finished, &signal_, [this] { deliver(); }, Qt::QueuedConnection);
  }
  ~BackgroundTask() { wait(); }
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  // Runs `work` (a callable returning T) on a new thread; `done(T)` runs on the GUI thread when it
  // has finished, unless another task was started since (the newest one's result wins).
  template <class F>
  void start(F work, std::function<void(T)> done) {
    reap();
    auto box = std::make_shared<Box>();
    box_ = box;
    done_ = std::move(done);
    workers_.push_back({std::thread([box, work = std::move(work), signal = &signal_]() mutable {
                          box->put(work());
                          emit signal->finished();
                        }),
                        box});
  }
  // Waits for every started task; the newest one's `done` runs here if it has not run yet.
  void finish_now() {
    wait();
    deliver();
  }
  // Waits for every started task's thread (their `done` still comes through the event loop).
  void wait() {
    for (auto& w : workers_)
      if (w.thread.joinable()) w.thread.join();
    workers_.clear();
  }
  // The newest task's `done` has not run yet.
  [[nodiscard]] bool running() const { return box_ != nullptr; }

 private:
  struct Box {
    std::mutex mutex;
    std::optional<T> value;
    bool finished = false;
    void put(T v) {
      const std::lock_guard lock(mutex);
      value = std::move(v);
      finished = true;
    }
    [[nodiscard]] bool done() {
      const std::lock_guard lock(mutex);
      return finished;
    }
    std::optional<T> take() {
      const std::lock_guard lock(mutex);
      return std::exchange(value, std::nullopt);
    }
  };
  struct Worker {
    std::thread thread;
    std::shared_ptr<Box> box;
  };

  void deliver() {
    reap();
    if (!box_ || !box_->done()) return;  // an older task finished; the newest has not
    std::optional<T> value = box_->take();
    box_.reset();
    // `done` may start the next task, which replaces done_: call it from here.
    const std::function<void(T)> done = done_;
    if (value && done) done(std::move(*value));
  }
  // Joins the threads that have finished their work (a moment before their signal).
  void reap() {
    std::erase_if(workers_, [](Worker& w) {
      if (!w.box->done()) return false;
      w.thread.join();
      return true;
    });
  }

  TaskSignal signal_;
  std::shared_ptr<Box> box_;  // the newest task's
  std::function<void(T)> done_;
  std::vector<Worker> workers_;
};

}  // namespace ncp2::gui
