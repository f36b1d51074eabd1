#pragma once
// A QGuiApplication for drawing images from the command line (`ncp2 counters --plot`,
// `ncp2 schedule --plot`): Qt needs an application object for fonts, the CLI has none, so one is
// made on the offscreen platform (no display), once, for the process's lifetime; and the PNG
// written whole. Include only
// from sources built with Qt 6 Gui.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <QGuiApplication>
#include <QImage>
#include <QString>

namespace ncp2::counters {

inline void ensure_offscreen_gui_application() {
  if (QGuiApplication::instance()) return;
  static int argc = 3;
  // QGuiApplication keeps (and may edit) argc and argv: they live as long as it.
  static auto arg0 = std::to_array("ncp2");
  static auto arg1 = std::to_array("-platform");
  static auto arg2 = std::to_array("offscreen");
  static std::array<char*, 4> argv = {arg0.data(), arg1.data(), arg2.data(), nullptr};
  // Silence Qt's chatter about XDG_RUNTIME_DIR and the like; real failures are reported by us.
  qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
    if (type == QtCriticalMsg || type == QtFatalMsg)
      std::fprintf(stderr, "Qt: %s\n", message.toLocal8Bit().data());
  });
  static const auto app = std::make_unique<QGuiApplication>(argc, argv.data());
}

// Writes `image` as a PNG through a temporary file renamed over `path`, so that a reader never
// sees half a PNG. Returns what went wrong ("PATH: cannot write the PNG"), or "" when written.
inline std::string save_png_atomically(const QImage& image, const std::string& path) {
  const std::string temp = fmt::format("{}.tmp-{}.png", path, ::getpid());
  if (!image.save(QString::fromStdString(temp), "PNG")) {
    std::remove(temp.c_str());
    return fmt::format("{}: cannot write the PNG", path);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return fmt::format("{}: cannot write the PNG (rename failed)", path);
  }
  return "";
}

}  // namespace ncp2::counters
