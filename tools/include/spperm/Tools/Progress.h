//===- Progress.h - Progress lines for long tool stages --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_PROGRESS_H
#define SPPERM_TOOLS_PROGRESS_H

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>

#include <climits>
#include <pthread.h>

namespace spperm {

/// The threshold of long stages, in seconds: 1, or $SPPERM_PROGRESS_SECONDS
/// (the tests set 0 to see every stage, or a large value to see none). Fails
/// with a one-line `error` when the variable is not a number of seconds in
/// [0, 1e9].
bool progressThreshold(double &seconds, std::string &error);

/// Progress on stderr for stages that take long: a watcher thread announces
/// a stage once it has run for `threshold` seconds ("TOOL: generating
/// kernels ..."), and its end ("... done in 2.3 s"); stages that finish
/// sooner print nothing. The tools disable it with -q.
class Progress {
public:
  /// Without a thread (a memory cap may leave none to start) the tool
  /// runs on, and only the stages announced at once (threshold 0) print.
  Progress(const char *tool, bool enabled, double threshold)
      : tool(tool), enabled(enabled), threshold(threshold) {
    if (!enabled || threshold <= 0)
      return;
    // pthread_create reports failure where std::thread would throw (the
    // tools are built without exceptions), and takes a small stack: the
    // default, 8 MiB, would count against a memory cap (SPPERM_MEMORY_LIMIT)
    // that the tool alone stays within.
    pthread_attr_t attr;
    if (::pthread_attr_init(&attr) != 0)
      return;
    ::pthread_attr_setstacksize(
        &attr, std::max<size_t>(size_t(64) << 10, PTHREAD_STACK_MIN));
    watching = ::pthread_create(
                   &watcher, &attr,
                   [](void *self) -> void * {
                     static_cast<Progress *>(self)->watch();
                     return nullptr;
                   },
                   this) == 0;
    ::pthread_attr_destroy(&attr);
  }
  ~Progress() {
    finish();
    if (watching) {
      {
        std::lock_guard<std::mutex> lock(m);
        stopping = true;
      }
      wake.notify_all();
      ::pthread_join(watcher, nullptr);
    }
  }
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// Ends the current stage and starts `what`.
  void stage(std::string what) {
    if (!enabled)
      return;
    std::lock_guard<std::mutex> lock(m);
    endLocked();
    current = std::move(what);
    started = std::chrono::steady_clock::now();
    announced = threshold <= 0;
    if (announced)
      std::fprintf(stderr, "%s: %s ...\n", tool, current.c_str());
    wake.notify_all();
  }
  /// Ends the current stage.
  void finish() {
    if (!enabled)
      return;
    std::lock_guard<std::mutex> lock(m);
    endLocked();
  }

private:
  void endLocked() {
    if (!current.empty() && announced)
      std::fprintf(stderr, "%s: %s: done in %.1f s\n", tool,
                   current.c_str(), since(started));
    current.clear();
  }
  void watch() {
    std::unique_lock<std::mutex> lock(m);
    while (!stopping) {
      if (!current.empty() && !announced) {
        const double left = threshold - since(started);
        if (left <= 0) {
          std::fprintf(stderr, "%s: %s ...\n", tool, current.c_str());
          announced = true;
          continue;
        }
        wake.wait_for(lock, std::chrono::duration<double>(left));
      } else {
        wake.wait(lock);
      }
    }
  }
  static double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
        .count();
  }

  const char *tool;
  const bool enabled;
  const double threshold;
  /// Whether the watcher thread runs.
  bool watching = false;
  std::mutex m;
  std::condition_variable wake;
  pthread_t watcher;
  std::string current;
  std::chrono::steady_clock::time_point started;
  bool announced = false, stopping = false;
};

} // namespace spperm

#endif // SPPERM_TOOLS_PROGRESS_H
