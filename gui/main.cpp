// carnival [FILE.db]: the CARNIVAL GUI (docs/gui.md). With --screenshot OUT.png it renders a view
// without a display and exits: 0 done, 1 the image could not be written, 2 bad usage or a file
// that cannot be shown (the message says why).
#include <cstdio>
#include <cstdlib>

#include <QApplication>
#include <QImageWriter>

#include "gui/export.hpp"
#include "gui/headless.hpp"
#include "gui/main_window.hpp"

#ifndef NCP2_VERSION
#define NCP2_VERSION "unknown"
#endif

namespace {

void print_error(const QString& message) { std::fprintf(stderr, "carnival: %s\n", qPrintable(message)); }

// Headless, the offscreen platform's notes about what it cannot do are noise, not news.
QtMessageHandler default_handler = nullptr;
void quiet_offscreen_notes(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (type == QtWarningMsg && (message.contains(QLatin1String("propagateSizeHints")) ||
                               message.contains(QLatin1String("XDG_RUNTIME_DIR"))))
    return;
  default_handler(type, context, message);
}

bool has_display() {
  return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
         !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

}  // namespace

int main(int argc, char** argv) {
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  const ncp2::gui::CommandLine options = ncp2::gui::parse_command_line(arguments);
  if (options.help) {
    std::fputs(qPrintable(options.help_text), stdout);
    return 0;
  }
  if (options.version) {
    std::printf("carnival (ncp2) %s\n", NCP2_VERSION);
    return 0;
  }
  if (!options.error.isEmpty()) {
    print_error(options.error);
    std::fprintf(stderr,
                 "usage: carnival [FILE.db] | carnival --screenshot OUT.png [--view V] [--scope NAME] "
                 "[--size WxH] [--node N] [--compare B.db] FILE.db\n");
    return 2;
  }
  const bool headless = !options.screenshot.isEmpty();
  if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    // No display needed, and the same pixels wherever it runs.
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  if (headless) {
    default_handler = qInstallMessageHandler(quiet_offscreen_notes);
  } else if (!headless && !has_display()) {
    print_error(
        "no display (DISPLAY and WAYLAND_DISPLAY are not set); for headless use: "
        "carnival --screenshot OUT.png FILE.db");
    return 2;
  }

  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("NCP2-Carnival"));
  QApplication::setApplicationName(QStringLiteral("carnival"));
  QApplication::setApplicationVersion(QStringLiteral(NCP2_VERSION));

  ncp2::gui::MainWindow window;
  if (headless) {
    QString error;
    const QImage image = ncp2::gui::render_view(window, options, &error);
    if (image.isNull()) {
      print_error(error.isEmpty() ? QStringLiteral("nothing to render") : error);
      return 2;
    }
    if (options.screenshot.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
      // Drawn again as vectors: text stays text.
      if (const QString e = ncp2::gui::write_svg(&window, options.screenshot, window.windowTitle());
          !e.isEmpty()) {
        print_error(e);
        return 1;
      }
      return 0;
    }
    QImageWriter writer(options.screenshot);
    if (!writer.write(image)) {
      print_error(QStringLiteral("cannot write %1: %2").arg(options.screenshot, writer.errorString()));
      return 1;
    }
    return 0;
  }
  window.show();
  if (!options.file.isEmpty()) window.open_file(options.file);
  if (options.node >= 0) {
    QObject::connect(&window, &ncp2::gui::MainWindow::run_opened, &window,
                     [&window, node = options.node] { window.context()->set_node_filter(node); });
  }
  if (!options.compare.isEmpty()) {
    // Once A is open (only the first time: opening another run later does not compare again).
    auto* once = new QObject(&window);
    QObject::connect(&window, &ncp2::gui::MainWindow::run_opened, once, [&window, once, b = options.compare] {
      window.compare_with(b);
      once->deleteLater();
    });
  }
  return QApplication::exec();
}
