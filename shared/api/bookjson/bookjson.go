// Package bookjson is the wire shape of books: the full book, the search
// result item and the spec's BookBrief, which lines, reviews, wishlists,
// clubs and inventory embed.
package bookjson

import (
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/books"
)

// Full is the spec's Book.
type Full struct {
	ID            string   `json:"id"`
	ISBN          string   `json:"isbn"`
	ISBN13        string   `json:"isbn13"`
	ISBN10        *string  `json:"isbn10"`
	Title         string   `json:"title"`
	Authors       []string `json:"authors"`
	Publisher     string   `json:"publisher"`
	PublishedDate string   `json:"publishedDate"`
	Description   string   `json:"description"`
	CoverURL      string   `json:"coverUrl"`
	PageCount     int      `json:"pageCount"`
	Language      string   `json:"language"`
	Categories    []string `json:"categories"`
	AverageRating float64  `json:"averageRating"`
	TotalReviews  int      `json:"totalReviews"`
	TotalLines    int      `json:"totalLines"`
	CreatedAt     string   `json:"createdAt"`
	UpdatedAt     string   `json:"updatedAt"`
}

// SearchItem is a book in search results: the spec's Book without
// language, totalLines and timestamps.
type SearchItem struct {
	ID            string   `json:"id"`
	ISBN          string   `json:"isbn"`
	ISBN13        string   `json:"isbn13"`
	ISBN10        *string  `json:"isbn10"`
	Title         string   `json:"title"`
	Authors       []string `json:"authors"`
	Publisher     string   `json:"publisher"`
	PublishedDate string   `json:"publishedDate"`
	Description   string   `json:"description"`
	CoverURL      string   `json:"coverUrl"`
	PageCount     int      `json:"pageCount"`
	Categories    []string `json:"categories"`
	AverageRating float64  `json:"averageRating"`
	TotalReviews  int      `json:"totalReviews"`
}

// Brief is the spec's BookBrief.
type Brief struct {
	ID       string   `json:"id"`
	ISBN     string   `json:"isbn"`
	Title    string   `json:"title"`
	Authors  []string `json:"authors"`
	CoverURL string   `json:"coverUrl"`
}

// Short is a book as club and challenge line lists show it (spec: Line,
// "in club and challenge listings only title, authors, coverUrl").
type Short struct {
	Title    string   `json:"title"`
	Authors  []string `json:"authors"`
	CoverURL string   `json:"coverUrl"`
}

// ShortOf is b's Short, nil (JSON null) when the record is missing.
func ShortOf(b *books.Book) *Short {
	if b == nil {
		return nil
	}
	return &Short{Title: b.Title, Authors: list(b.Authors), CoverURL: b.CoverURL()}
}

// NewFull converts a book to the full shape.
func NewFull(b *books.Book) Full {
	return Full{
		ID: b.ID, ISBN: b.ISBN(), ISBN13: b.ISBN13, ISBN10: nullable(b.ISBN10), Title: b.Title,
		Authors: list(b.Authors), Publisher: b.Publisher, PublishedDate: b.PublishedDate,
		Description: b.Description, CoverURL: b.CoverURL(), PageCount: b.PageCount, Language: b.Language,
		Categories: list(b.Categories), AverageRating: b.AverageRating(), TotalReviews: b.TotalReviews,
		TotalLines: b.TotalLines, CreatedAt: userjson.Time(b.CreatedAt), UpdatedAt: userjson.Time(b.UpdatedAt),
	}
}

// NewSearchItem converts a book to the search result shape.
func NewSearchItem(b *books.Book) SearchItem {
	return SearchItem{
		ID: b.ID, ISBN: b.ISBN(), ISBN13: b.ISBN13, ISBN10: nullable(b.ISBN10), Title: b.Title,
		Authors: list(b.Authors), Publisher: b.Publisher, PublishedDate: b.PublishedDate,
		Description: b.Description, CoverURL: b.CoverURL(), PageCount: b.PageCount,
		Categories: list(b.Categories), AverageRating: b.AverageRating(), TotalReviews: b.TotalReviews,
	}
}

// NewBrief converts a book to a BookBrief.
func NewBrief(b *books.Book) Brief {
	return Brief{ID: b.ID, ISBN: b.ISBN(), Title: b.Title, Authors: list(b.Authors), CoverURL: b.CoverURL()}
}

// BriefOf is b's BookBrief, nil (JSON null) when the record is missing.
func BriefOf(b *books.Book) *Brief {
	if b == nil {
		return nil
	}
	br := NewBrief(b)
	return &br
}

// list makes a missing list an empty JSON array rather than null.
func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
