//! Reports built from a journal.

use std::fmt::Write as _;

use crate::ledger::{AccountKind, Journal};
use crate::money::Money;

pub struct TrialBalanceLine {
    pub code: String,
    pub name: String,
    pub debit: Money,
    pub credit: Money,
}

/// Debit and credit columns per account; both totals are equal for a sound journal.
pub fn trial_balance(journal: &Journal) -> Vec<TrialBalanceLine> {
    let zero = Money::zero(journal.currency());
    journal
        .accounts()
        .map(|(id, account)| {
            let balance = journal.balance(id);
            let (debit, credit) = if balance.minor() >= 0 { (balance, zero) } else { (zero, -balance) };
            TrialBalanceLine { code: account.code.clone(), name: account.name.clone(), debit, credit }
        })
        .collect()
}

/// Revenue minus expenses.
pub fn net_income(journal: &Journal) -> Money {
    journal
        .accounts()
        .filter(|(_, account)| matches!(account.kind, AccountKind::Revenue | AccountKind::Expense))
        .fold(Money::zero(journal.currency()), |sum, (id, _)| sum - journal.balance(id))
}

pub fn render(lines: &[TrialBalanceLine]) -> String {
    let mut out = String::new();
    for line in lines {
        let _ = writeln!(out, "{:<6} {:<24} {:>14} {:>14}", line.code, line.name, line.debit, line.credit);
    }
    out
}
