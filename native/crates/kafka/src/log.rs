//! What librdkafka says, kept for the JVM to log: librdkafka's log lines and the errors it retries
//! by itself (a broker down or restarting, a timeout), each distinct error once, until the JVM
//! side drains them into SLF4J.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use rdkafka::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::consumer::ConsumerContext;
use rdkafka::error::KafkaError;

/// Lines kept between drains; older ones are dropped and counted.
const MAX_LINES: usize = 1000;
/// Distinct errors remembered as logged; past this many, the memory starts over.
const MAX_SEEN: usize = 1000;

/// How severe a line is, as SLF4J levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warn,
    Info,
    Debug,
}

impl Level {
    /// The level's letter, as the JVM side reads it.
    pub fn letter(self) -> char {
        match self {
            Level::Error => 'E',
            Level::Warn => 'W',
            Level::Info => 'I',
            Level::Debug => 'D',
        }
    }
}

#[derive(Debug, Default)]
struct Lines {
    lines: VecDeque<(Level, String)>,
    dropped: u64,
    seen: HashSet<String>,
}

/// The context of StreamFusion's librdkafka clients: collects what they say.
#[derive(Debug, Default)]
pub struct ClientLog {
    lines: Mutex<Lines>,
}

impl ClientLog {
    fn push(&self, level: Level, line: String) {
        let Ok(mut lines) = self.lines.lock() else {
            return;
        };
        if lines.lines.len() >= MAX_LINES {
            lines.lines.pop_front();
            lines.dropped += 1;
        }
        lines.lines.push_back((level, line));
    }

    /// Records an error librdkafka retries by itself, the first time it is seen.
    pub fn retried(&self, error: String) {
        let first = match self.lines.lock() {
            Ok(mut lines) => {
                if lines.seen.len() >= MAX_SEEN {
                    lines.seen.clear();
                }
                lines.seen.insert(error.clone())
            }
            Err(_) => false,
        };
        if first {
            self.push(
                Level::Warn,
                format!("{error} (librdkafka retries; logged once)"),
            );
        }
    }

    /// The lines collected since the last drain, oldest first, and how many were dropped.
    pub fn drain(&self) -> (Vec<(Level, String)>, u64) {
        let Ok(mut lines) = self.lines.lock() else {
            return (Vec::new(), 0);
        };
        let dropped = std::mem::take(&mut lines.dropped);
        (lines.lines.drain(..).collect(), dropped)
    }
}

impl ClientContext for ClientLog {
    fn log(&self, level: RDKafkaLogLevel, facility: &str, message: &str) {
        let level = match level {
            RDKafkaLogLevel::Emerg
            | RDKafkaLogLevel::Alert
            | RDKafkaLogLevel::Critical
            | RDKafkaLogLevel::Error => Level::Error,
            RDKafkaLogLevel::Warning => Level::Warn,
            RDKafkaLogLevel::Notice | RDKafkaLogLevel::Info => Level::Info,
            RDKafkaLogLevel::Debug => Level::Debug,
        };
        self.push(level, format!("{facility} {message}"));
    }

    fn error(&self, error: KafkaError, reason: &str) {
        self.retried(format!("{error}: {reason}"));
    }
}

impl ConsumerContext for ClientLog {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retried_errors_are_kept_once_and_lines_are_bounded() {
        let log = ClientLog::default();
        log.retried("broker down".to_string());
        log.retried("broker down".to_string());
        log.log(RDKafkaLogLevel::Warning, "FAIL", "connection refused");
        let (lines, dropped) = log.drain();
        assert_eq!(dropped, 0);
        assert_eq!(
            lines,
            vec![
                (
                    Level::Warn,
                    "broker down (librdkafka retries; logged once)".to_string()
                ),
                (Level::Warn, "FAIL connection refused".to_string()),
            ]
        );
        for i in 0..MAX_LINES + 5 {
            log.log(RDKafkaLogLevel::Info, "X", &i.to_string());
        }
        let (lines, dropped) = log.drain();
        assert_eq!((lines.len(), dropped), (MAX_LINES, 5));
        assert_eq!(log.drain(), (Vec::new(), 0));
    }
}
