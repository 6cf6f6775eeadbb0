# frozen_string_literal: true

require "minitest/autorun"
require_relative "../lib/tally"

class LedgerTest < Minitest::Test
  def test_balance_adds_up_entries
    ledger = Tally::Ledger.new("cash")
    ledger.record("12.50", "lunch")
    ledger.record("-2.50")
    assert_equal BigDecimal("10"), ledger.balance
  end

  def test_closed_ledger_refuses_entries
    ledger = Tally::Ledger.new("cash")
    ledger.close
    assert_raises(Tally::LedgerClosedError) { ledger.record("1") }
  end
end
