# frozen_string_literal: true

module Tally
  # Summaries of a ledger for printing.
  class Report
    def initialize(ledger)
      @ledger = ledger
    end

    # Credits and debits totalled separately, then the balance.
    def totals
      credits, debits = @ledger.partition(&:credit?)
      {
        credits: credits.sum(BigDecimal("0"), &:amount),
        debits: debits.sum(BigDecimal("0"), &:amount),
        balance: @ledger.balance
      }
    end

    def to_text
      totals.map { |key, value| format("%-8s %10.2f", key, value) }.join("\n")
    end
  end
end
