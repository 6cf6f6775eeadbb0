# frozen_string_literal: true

require "tally/entry"

module Tally
  class LedgerClosedError < StandardError; end

  # A named list of entries with a running balance. Closing a ledger freezes it.
  class Ledger
    include Enumerable

    attr_reader :name

    def initialize(name, entries: [])
      @name = name
      @entries = entries.dup
      @closed = false
    end

    # Adds a movement of +amount+ and returns the new entry.
    def record(amount, memo = nil)
      raise LedgerClosedError, "#{name} is closed" if @closed

      entry = Entry.new(amount, memo)
      validate!(entry)
      @entries << entry
      entry
    end

    def balance
      @entries.sum(BigDecimal("0"), &:amount)
    end

    def each(&block)
      @entries.each(&block)
    end

    def close
      @closed = true
    end

    private

    def validate!(entry)
      raise ArgumentError, "an entry needs an amount" if entry.amount.zero?
    end
  end
end
