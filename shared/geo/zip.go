package geo

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// zcta2010 is "zip,lat,lng" per line, sorted by ZIP: the internal point
// of every 2010 Census ZIP Code Tabulation Area (33,120 of them), from
// the U.S. Census Bureau's 2010 Gazetteer file (public domain);
// local/data/README.md names the source and how the file was derived.
//
//go:embed zcta2010.csv.gz
var zcta2010 []byte

var zips = sync.OnceValues(func() (map[string]Point, error) {
	zr, err := gzip.NewReader(bytes.NewReader(zcta2010))
	if err != nil {
		return nil, err
	}
	out := make(map[string]Point, 34000)
	sc := bufio.NewScanner(zr)
	for line := 1; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), ",")
		if len(f) != 3 {
			return nil, fmt.Errorf("zcta2010 line %d: want zip,lat,lng", line)
		}
		lat, err1 := strconv.ParseFloat(f[1], 64)
		lng, err2 := strconv.ParseFloat(f[2], 64)
		p := Point{Lat: lat, Lng: lng}
		if err1 != nil || err2 != nil || !p.Valid() {
			return nil, fmt.Errorf("zcta2010 line %d: bad coordinates", line)
		}
		out[f[0]] = p
	}
	return out, sc.Err()
})

// ZIP returns the centroid of a US ZIP code: five digits, or ZIP+4
// ("97209-1234", whose first five count). ok is false for a code the
// dataset does not hold (a PO-box-only or newer ZIP, or not a ZIP).
func ZIP(code string) (Point, bool) {
	code = strings.TrimSpace(code)
	if len(code) == 10 && code[5] == '-' {
		code = code[:5]
	}
	if len(code) != 5 {
		return Point{}, false
	}
	m, err := zips()
	if err != nil {
		// The file is part of the binary; tests read it whole.
		panic("geo: " + err.Error())
	}
	p, ok := m[code]
	return p, ok
}
