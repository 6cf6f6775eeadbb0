// Package rates holds carrier rate tables and the Carrier abstraction.
package rates

import (
	"errors"
	"fmt"
	"sort"
)

// Zone is a destination zone as defined by the carriers' rate cards.
type Zone int

const (
	ZoneLocal Zone = iota + 1
	ZoneRegional
	ZoneNational
	ZoneRemote
)

func (z Zone) String() string {
	switch z {
	case ZoneLocal:
		return "local"
	case ZoneRegional:
		return "regional"
	case ZoneNational:
		return "national"
	case ZoneRemote:
		return "remote"
	default:
		return fmt.Sprintf("zone(%d)", int(z))
	}
}

// ErrNoRate is returned when a parcel is heavier than any row in a table.
var ErrNoRate = errors.New("rates: no rate for this weight")

// Parcel describes what is being shipped.
type Parcel struct {
	WeightGrams int
	LengthCm    int
	WidthCm     int
	HeightCm    int
}

// VolumetricGrams is the billable weight carriers derive from size
// (length x width x height / 5000, in kilograms).
func (p Parcel) VolumetricGrams() int {
	return p.LengthCm * p.WidthCm * p.HeightCm / 5
}

// BillableGrams is the larger of real and volumetric weight.
func (p Parcel) BillableGrams() int {
	if v := p.VolumetricGrams(); v > p.WeightGrams {
		return v
	}
	return p.WeightGrams
}

// Row is one weight bracket of a rate table; Prices are in yen per zone.
type Row struct {
	MaxGrams int
	Prices   map[Zone]int
}

// Table is a carrier's rate card, sorted by MaxGrams.
type Table struct {
	rows []Row
}

// NewTable sorts the rows and returns a ready-to-use table.
func NewTable(rows ...Row) *Table {
	sorted := append([]Row(nil), rows...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].MaxGrams < sorted[j].MaxGrams })
	return &Table{rows: sorted}
}

// Lookup returns the price for a billable weight in a zone.
func (t *Table) Lookup(grams int, zone Zone) (int, error) {
	for _, row := range t.rows {
		if grams <= row.MaxGrams {
			price, ok := row.Prices[zone]
			if !ok {
				return 0, fmt.Errorf("rates: zone %s not served", zone)
			}
			return price, nil
		}
	}
	return 0, ErrNoRate
}

// Carrier is anything that can price a parcel for a zone.
type Carrier interface {
	Name() string
	Price(p Parcel, zone Zone) (int, error)
}

// TableCarrier prices parcels from a static rate table plus a fuel surcharge.
type TableCarrier struct {
	CarrierName      string
	Rates            *Table
	FuelSurchargePct int
}

// Name implements Carrier.
func (c TableCarrier) Name() string { return c.CarrierName }

// Price implements Carrier.
func (c TableCarrier) Price(p Parcel, zone Zone) (int, error) {
	base, err := c.Rates.Lookup(p.BillableGrams(), zone)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.CarrierName, err)
	}
	return base + base*c.FuelSurchargePct/100, nil
}
