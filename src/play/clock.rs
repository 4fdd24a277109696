//! Chess clocks for `sentinel play`: the time control as people write it (`5+3`: five minutes
//! each, three seconds added per move) and the two clocks it starts.

use crate::board::Color;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base: Duration,
    pub increment: Duration,
}

/// The longest game a clock is set for, so that arithmetic on it cannot overflow.
const MAX_MINUTES: f64 = 24.0 * 60.0;

impl FromStr for TimeControl {
    type Err = String;

    /// `MINUTES[+SECONDS]`, either part possibly fractional: `5+3`, `0.5+1`, `15`.
    fn from_str(text: &str) -> Result<TimeControl, String> {
        let bad = || format!("a time control is MINUTES+SECONDS, such as 5+3 or 0.5+1, got '{text}'");
        let (base, increment) = text.trim().split_once('+').unwrap_or((text.trim(), "0"));
        let number = |part: &str, max: f64| part.trim().parse::<f64>().ok().filter(|n| (0.0..=max).contains(n));
        let base = number(base, MAX_MINUTES).filter(|&m| m > 0.0).ok_or_else(bad)?;
        let increment = number(increment, 60.0 * MAX_MINUTES).ok_or_else(bad)?;
        Ok(TimeControl { base: Duration::from_secs_f64(base * 60.0), increment: Duration::from_secs_f64(increment) })
    }
}

impl fmt::Display for TimeControl {
    /// As given: `5+3`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}+{}", self.base.as_secs_f64() / 60.0, self.increment.as_secs_f64())
    }
}

impl TimeControl {
    /// The PGN `TimeControl` tag's form: seconds, `300+3`.
    pub fn pgn_tag(&self) -> String {
        format!("{}+{}", self.base.as_secs_f64(), self.increment.as_secs_f64())
    }
}

/// Both players' remaining time.
#[derive(Clone, Debug)]
pub struct Clocks {
    pub control: TimeControl,
    remaining: [Duration; 2],
}

impl Clocks {
    pub fn new(control: TimeControl) -> Clocks {
        Clocks { control, remaining: [control.base; 2] }
    }

    pub fn remaining(&self, side: Color) -> Duration {
        self.remaining[side.index()]
    }

    /// Takes a move's thinking time off `side`'s clock and adds the increment; false, with the
    /// clock at zero, if the time ran out first.
    pub fn spend(&mut self, side: Color, used: Duration) -> bool {
        let clock = &mut self.remaining[side.index()];
        if used >= *clock {
            *clock = Duration::ZERO;
            return false;
        }
        *clock = *clock - used + self.control.increment;
        true
    }
}

/// A clock reading: `4:58` with a minute or more left, `0:09.3` in the last 20 seconds (when
/// tenths matter), `1:02:03` past an hour.
pub fn format(time: Duration) -> String {
    let tenths = time.as_millis() / 100;
    let seconds = tenths / 10;
    if seconds >= 3600 {
        format!("{}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
    } else if seconds >= 20 {
        format!("{}:{:02}", seconds / 60, seconds % 60)
    } else {
        format!("0:{:02}.{}", seconds, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_minutes_and_seconds() {
        let tc: TimeControl = "5+3".parse().unwrap();
        assert_eq!(tc, TimeControl { base: Duration::from_secs(300), increment: Duration::from_secs(3) });
        assert_eq!(tc.pgn_tag(), "300+3");
        assert_eq!(tc.to_string(), "5+3");
        let tc: TimeControl = " 0.5 ".parse().unwrap();
        assert_eq!(tc, TimeControl { base: Duration::from_secs(30), increment: Duration::ZERO });
        for bad in ["", "0+1", "-1+2", "5+x", "x", "5+3+1", "100000"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn clocks_count_down_and_fall() {
        let mut clocks = Clocks::new("1+2".parse().unwrap());
        assert!(clocks.spend(Color::White, Duration::from_secs(10)));
        assert_eq!(clocks.remaining(Color::White), Duration::from_secs(52));
        assert_eq!(clocks.remaining(Color::Black), Duration::from_secs(60));
        assert!(!clocks.spend(Color::Black, Duration::from_secs(60)));
        assert_eq!(clocks.remaining(Color::Black), Duration::ZERO);
    }

    #[test]
    fn readings() {
        assert_eq!(format(Duration::from_millis(298_400)), "4:58");
        assert_eq!(format(Duration::from_millis(9_370)), "0:09.3");
        assert_eq!(format(Duration::from_secs(3723)), "1:02:03");
    }
}
