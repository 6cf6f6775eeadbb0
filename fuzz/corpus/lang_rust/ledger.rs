use std::collections::BTreeMap;
use std::fmt;

use crate::money::{Currency, Money};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountKind {
    Asset,
    Liability,
    Equity,
    Revenue,
    Expense,
}

impl AccountKind {
    /// Whether debits increase the account's balance.
    pub fn is_debit_normal(self) -> bool {
        matches!(self, AccountKind::Asset | AccountKind::Expense)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AccountId(usize);

#[derive(Debug, Clone)]
pub struct Account {
    pub code: String,
    pub name: String,
    pub kind: AccountKind,
}

#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub account: AccountId,
    /// Positive for a debit, negative for a credit.
    pub amount: Money,
}

#[derive(Debug, Clone)]
pub struct Transaction {
    pub memo: String,
    pub entries: Vec<Entry>,
}

impl Transaction {
    pub fn new(memo: impl Into<String>) -> Self {
        Transaction { memo: memo.into(), entries: Vec::new() }
    }

    pub fn debit(mut self, account: AccountId, amount: Money) -> Self {
        self.entries.push(Entry { account, amount });
        self
    }

    pub fn credit(mut self, account: AccountId, amount: Money) -> Self {
        self.entries.push(Entry { account, amount: -amount });
        self
    }

    fn imbalance(&self, currency: Currency) -> Result<Money, LedgerError> {
        self.entries.iter().try_fold(Money::zero(currency), |sum, entry| {
            sum.checked_add(entry.amount).ok_or(LedgerError::CurrencyMismatch)
        })
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum LedgerError {
    Unbalanced(Money),
    CurrencyMismatch,
    UnknownAccount(AccountId),
    Empty,
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerError::Unbalanced(diff) => write!(f, "transaction is off by {diff}"),
            LedgerError::CurrencyMismatch => f.write_str("entries use different currencies"),
            LedgerError::UnknownAccount(id) => write!(f, "unknown account #{}", id.0),
            LedgerError::Empty => f.write_str("transaction has no entries"),
        }
    }
}

impl std::error::Error for LedgerError {}

/// The book of record. Only balanced transactions get in.
pub struct Journal {
    currency: Currency,
    accounts: Vec<Account>,
    posted: Vec<Transaction>,
    balances: BTreeMap<AccountId, Money>,
}

impl Journal {
    pub fn new(currency: Currency) -> Self {
        Journal { currency, accounts: Vec::new(), posted: Vec::new(), balances: BTreeMap::new() }
    }

    pub fn open_account(&mut self, code: &str, name: &str, kind: AccountKind) -> AccountId {
        self.accounts.push(Account { code: code.to_owned(), name: name.to_owned(), kind });
        AccountId(self.accounts.len() - 1)
    }

    pub fn post(&mut self, tx: Transaction) -> Result<(), LedgerError> {
        if tx.entries.is_empty() {
            return Err(LedgerError::Empty);
        }
        if let Some(entry) = tx.entries.iter().find(|e| e.account.0 >= self.accounts.len()) {
            return Err(LedgerError::UnknownAccount(entry.account));
        }
        let diff = tx.imbalance(self.currency)?;
        if !diff.is_zero() {
            return Err(LedgerError::Unbalanced(diff));
        }
        for entry in &tx.entries {
            let balance = self.balances.entry(entry.account).or_insert(Money::zero(self.currency));
            *balance = *balance + entry.amount;
        }
        self.posted.push(tx);
        Ok(())
    }

    /// Balance as a debit-positive amount.
    pub fn balance(&self, account: AccountId) -> Money {
        self.balances.get(&account).copied().unwrap_or(Money::zero(self.currency))
    }

    pub fn accounts(&self) -> impl Iterator<Item = (AccountId, &Account)> {
        self.accounts.iter().enumerate().map(|(i, a)| (AccountId(i), a))
    }

    pub fn currency(&self) -> Currency {
        self.currency
    }

    pub fn transactions(&self) -> &[Transaction] {
        &self.posted
    }
}
