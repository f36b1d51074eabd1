#pragma once
// What every windowed GUI test does first: the offscreen platform (unless QT_QPA_PLATFORM says
// otherwise), QSettings away from the user's own, the platform's notes about what it cannot do
// kept out of the test's output, and the application's names (recent files, settings).
#include <QByteArray>
#include <QCoreApplication>
#include <QStandardPaths>
#include <QString>
#include <QtGlobal>

namespace ncp2::gui::testing {

// From the test class's static initMain(), before the application exists.
inline void prepare_offscreen() {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QStandardPaths::setTestModeEnabled(true);
}

namespace detail {
inline QtMessageHandler& default_handler() {
  static QtMessageHandler handler = nullptr;
  return handler;
}
inline void quiet_offscreen_notes(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (type == QtWarningMsg && message.contains(QLatin1String("propagateSizeHints"))) return;
  default_handler()(type, context, message);
}
}  // namespace detail

// From initTestCase(): over QtTest's own message handler, and the application's names.
inline void begin_gui_test(const char* application) {
  detail::default_handler() = qInstallMessageHandler(detail::quiet_offscreen_notes);
  QCoreApplication::setOrganizationName("NCP2-Carnival-tests");
  QCoreApplication::setApplicationName(application);
}

}  // namespace ncp2::gui::testing
