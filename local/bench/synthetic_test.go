package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/books"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Word lists of the synthetic catalog. The first words of each list are
// drawn most often (syntheticPick), so a few words are as common as
// "love" or "house" are in a real catalog: their posting lists are the
// long ones a search must read.
var (
	synNouns = strings.Fields(`Love House Night River Garden City Road Sea Mountain Forest Window Door
		Letter Map Island Bridge Station Harbor Kingdom Daughter Son Mother Father Sister Brother Wife
		Husband Friend Stranger King Queen Hunter Thief Doctor Teacher Painter Soldier Sailor Keeper
		Witness Widow Orphan Day Year Summer Winter Spring Autumn Storm Rain Snow Fire Light Shadow Star
		Moon Sun Sky Field Valley Lake Shore Tower Castle Library Clock Mirror Song Dance Promise Secret
		Dream Memory Heart Voice Name Game War Peace Life Death Truth Time Journey Return Silence Music
		Book Word Bone Blood Salt Honey Wolf Fox Bird Horse Lion Crow Rose Orchard Lantern Compass
		Harvest Ember Tide Canyon Prairie Meadow Quarry Vineyard`)
	synAdjectives = strings.Fields(`Dark Last Silent Hidden Lost Secret Broken Golden Burning Quiet
		Wild Distant Forgotten Bright Crimson Hollow Endless Gentle Northern Southern Little Long Small
		Bitter Sweet Brave Strange Empty Open Fallen Rising Second Final First Frozen Painted Sleeping
		Wandering Invisible Midnight Morning Evening Iron Glass Paper Stone Silver Scarlet Blue Green
		Black White Red Ancient Modern Perfect Careful Unfinished`)
	synFirstNames = strings.Fields(`Maria James Anna John Elena David Sarah Michael Laura Robert Emma
		Thomas Sofia Daniel Claire Peter Julia Andrew Harriet Harry Olivia Samuel Grace Henry Alice
		Oliver Nora Lucas Ruth Isaac Clara Hugo Ines Mateo Camille Felix Ingrid Tomas Amara Kenji Priya
		Omar Leila Jonas Freya Pablo Lucia Marco Irene Victor`)
	synLastNames = strings.Fields(`Garcia Smith Johnson Brown Williams Jones Miller Davis Martin Wilson
		Anderson Taylor Thomas Moore Jackson White Harris Harrison Harrington Clark Lewis Walker Hall
		Allen Young King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter
		Phillips Evans Turner Torres Parker Collins Edwards Stewart Morris Murphy Rivera Cook Rogers
		Morgan Peterson Cooper Reed Bailey Bell Gomez Kelly Howard Ward Cox Diaz Richardson Wood Watson
		Brooks Bennett Gray James Reyes Cruz Hughes Price Myers Long Foster Sanders Ross Morales Powell
		Sullivan Russell Ortiz Jenkins Gutierrez Perry Butler Barnes Fisher Henderson Coleman Simmons
		Patterson Jordan Reynolds Hamilton Graham Kim Gonzales Alexander Ramos Wallace Griffin West
		Cole Hayes Chavez Gibson Bryant Ellis Stevens Murray Ford Marshall Owens McDonald Lindqvist
		Okafor Novak Kowalski Rossi Dubois Schmidt Nakamura Haddad Petrov`)
	synPublishers = []string{"Harbor Lane Press", "Northwind Books", "Blue Heron Editions", "Cedar & Quill",
		"Lanternfield Publishing", "Old Mill Press", "Meridian House", "Greywater Books", "Small Hours Press",
		"Copperbeech", "Tidewater Editions", "Fox Hollow Books"}
	synCategories = []string{"Fiction", "Mystery", "Romance", "Fantasy", "Science Fiction", "History",
		"Biography", "Poetry", "Travel", "Thriller", "Young Adult", "Essays"}
	synTitleForms = []string{"The %[1]s %[2]s", "%[2]s of %[3]s", "The %[2]s of the %[1]s %[3]s",
		"A %[2]s in %[3]s", "%[1]s %[2]s", "The %[2]s's %[3]s", "%[2]s and %[3]s", "Before the %[2]s",
		"After the %[1]s %[2]s", "Beyond the %[1]s %[3]s", "The %[1]s %[2]s of %[4]s",
		"Where the %[2]s Ends", "%[1]s %[2]s: A Novel", "The %[2]s Who Came Back"}
)

// syntheticPick draws from list with weight falling with the position:
// with skew 2, the first of 100 words is drawn one time in ten.
func syntheticPick(r *rand.Rand, list []string, skew float64) string {
	i := int(float64(len(list)) * math.Pow(r.Float64(), skew))
	return list[min(i, len(list)-1)]
}

// syntheticISBN13 is the n-th ISBN-13 of the synthetic range 979-8-9xxxxxx
// (979 books have no ISBN-10, which the benchmark wants represented), with
// its check digit computed.
func syntheticISBN13(n int) string {
	return books.CompleteISBN13("9798" + fmt.Sprintf("%08d", 90000000+n))
}

// syntheticBooks returns n plausible catalog records, the same ones for
// the same n on every run and machine (a fixed seed; the first n of a
// larger set are the same records), so benchmark figures can be compared.
func syntheticBooks(n int) []books.Record {
	r := rand.New(rand.NewPCG(20260101, 42))
	recs := make([]books.Record, n)
	for i := range recs {
		adj, noun, noun2 := syntheticPick(r, synAdjectives, 1.6), syntheticPick(r, synNouns, 2), syntheticPick(r, synNouns, 2)
		place := syntheticPick(r, synLastNames, 1.3)
		title := fmt.Sprintf(syntheticPick(r, synTitleForms, 1), adj, noun, noun2, place)
		authors := []string{syntheticPick(r, synFirstNames, 1.4) + " " + syntheticPick(r, synLastNames, 1.3)}
		if r.IntN(7) == 0 {
			authors = append(authors, syntheticPick(r, synFirstNames, 1.4)+" "+syntheticPick(r, synLastNames, 1.3))
		}
		cat := synCategories[r.IntN(len(synCategories))]
		recs[i] = books.Record{
			Line:          i + 1,
			ISBN:          syntheticISBN13(i),
			Title:         title,
			Authors:       authors,
			Publisher:     synPublishers[r.IntN(len(synPublishers))],
			PublishedDate: fmt.Sprintf("%04d-%02d-%02d", 1950+r.IntN(75), 1+r.IntN(12), 1+r.IntN(28)),
			PageCount:     80 + r.IntN(820),
			Language:      "en",
			Categories:    []string{cat},
			// About 400 characters, the size of a short back-cover text,
			// so a result page reads realistic items.
			Description: fmt.Sprintf("%s is a %s %s about a %s and the %s %s that changes everything. "+
				"Set between the %s and the %s, it follows %s through one %s year. %s",
				title, strings.ToLower(adj), strings.ToLower(cat), strings.ToLower(noun),
				strings.ToLower(syntheticPick(r, synAdjectives, 1)), strings.ToLower(noun2),
				strings.ToLower(syntheticPick(r, synNouns, 1)), strings.ToLower(syntheticPick(r, synNouns, 1)),
				authors[0], strings.ToLower(syntheticPick(r, synAdjectives, 1)),
				"Praised for its quiet precision and its humour, it is a book about what people keep and what they let go."),
		}
	}
	return recs
}

// The synthetic catalog is valid, distinct and the same on every call,
// so the benchmark imports exactly what it reports.
func TestSyntheticBooks_validDistinctDeterministic(t *testing.T) {
	recs := syntheticBooks(10000)
	assert.Equal(t, recs[:50], syntheticBooks(50), "a smaller set is a prefix of a larger one")
	seen := map[string]bool{}
	titles := map[string]bool{}
	love := 0
	for _, rec := range recs {
		isbn13, isbn10, err := books.NormalizeISBN(rec.ISBN)
		require.NoError(t, err, rec.ISBN)
		assert.Empty(t, isbn10, "979 books have no ISBN-10")
		assert.False(t, seen[isbn13], "ISBN %s repeated", isbn13)
		seen[isbn13] = true
		titles[rec.Title] = true
		for _, w := range books.Tokenize(rec.Title) {
			if w == "love" {
				love++
				break
			}
		}
	}
	assert.Greater(t, len(titles), 7000, "titles vary")
	// The common-word query of the benchmark must hit a long list.
	assert.Greater(t, love, 500)
}
