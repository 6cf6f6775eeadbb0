use std::fmt;
use std::ops::{Add, Neg, Sub};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Currency {
    Jpy,
    Usd,
    Eur,
}

impl Currency {
    /// Number of minor units in one major unit (cents per dollar, none for yen).
    pub fn minor_units(self) -> u32 {
        match self {
            Currency::Jpy => 0,
            Currency::Usd | Currency::Eur => 2,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Currency::Jpy => "JPY",
            Currency::Usd => "USD",
            Currency::Eur => "EUR",
        }
    }
}

/// An amount in the smallest unit of its currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Money {
    minor: i64,
    currency: Currency,
}

impl Money {
    pub const fn new(minor: i64, currency: Currency) -> Self {
        Money { minor, currency }
    }

    pub const fn yen(amount: i64) -> Self {
        Money::new(amount, Currency::Jpy)
    }

    pub const fn zero(currency: Currency) -> Self {
        Money::new(0, currency)
    }

    pub fn minor(&self) -> i64 {
        self.minor
    }

    pub fn currency(&self) -> Currency {
        self.currency
    }

    pub fn is_zero(&self) -> bool {
        self.minor == 0
    }

    /// Adds two amounts, or `None` when the currencies differ.
    pub fn checked_add(self, other: Money) -> Option<Money> {
        (self.currency == other.currency).then(|| Money::new(self.minor + other.minor, self.currency))
    }
}

impl Add for Money {
    type Output = Money;

    fn add(self, other: Money) -> Money {
        self.checked_add(other).expect("currency mismatch")
    }
}

impl Sub for Money {
    type Output = Money;

    fn sub(self, other: Money) -> Money {
        self + (-other)
    }
}

impl Neg for Money {
    type Output = Money;

    fn neg(self) -> Money {
        Money::new(-self.minor, self.currency)
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scale = 10_i64.pow(self.currency.minor_units());
        if scale == 1 {
            write!(f, "{} {}", self.minor, self.currency.code())
        } else {
            let sign = if self.minor < 0 { "-" } else { "" };
            let abs = self.minor.abs();
            write!(f, "{sign}{}.{:02} {}", abs / scale, abs % scale, self.currency.code())
        }
    }
}
