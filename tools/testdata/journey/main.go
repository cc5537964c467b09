// Command journey is a client team's first hour with the API, written
// against the client ogen generates from the document as served: sign up,
// log in, find a book by ISBN and read it, post a line about it, read the
// line back alone and in the book's lines, refresh the tokens, and meet a
// 404. The generated client decodes strictly and validates every answer
// against the document, so an answer that strays from it fails here.
//
// local/clientgen's test copies this file next to the generated client
// (package ogenclient) in a copy of the tools module and runs it against
// the local stack; it exits 1 with the step that failed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/bookplatform/backend/tools/ogenclient"
	"github.com/ogen-go/ogen/ogenerrors"
)

// bearer is the client's security source: the current access token,
// none before sign-up (an operation where a token is optional is then
// called without one).
type bearer struct{ token string }

func (b *bearer) BearerAuth(context.Context, ogenclient.OperationName) (ogenclient.BearerAuth, error) {
	if b.token == "" {
		return ogenclient.BearerAuth{}, ogenerrors.ErrSkipClientSecurity
	}
	return ogenclient.BearerAuth{Token: b.token}, nil
}

func main() {
	base := flag.String("base", "", "the API's base URL")
	isbn := flag.String("isbn", "", "the ISBN of a book in the catalog")
	user := flag.String("user", "journey", "the username to sign up")
	flag.Parse()
	if err := run(*base, *isbn, *user); err != nil {
		fmt.Fprintln(os.Stderr, "journey:", err)
		os.Exit(1)
	}
	fmt.Println("journey: every step answered as documented")
}

// answer is what ogen wraps an answer with headers in: the body and the
// X-Request-Id the document requires on every answer. The wrapper's name
// is ogen's choice (it shares one between operations), the body's type is
// the document's.
type answer[T any] interface {
	GetResponse() T
	GetXRequestID() string
}

// as returns the body of res when it is a T, or an error naming the step
// and what came instead.
func as[T any](step string, res any, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, fmt.Errorf("%s: %w", step, err)
	}
	got, ok := res.(answer[T])
	if !ok {
		return zero, fmt.Errorf("%s: answered %T %+v, want a %T", step, res, res, zero)
	}
	if got.GetXRequestID() == "" {
		return zero, fmt.Errorf("%s: no X-Request-Id", step)
	}
	return got.GetResponse(), nil
}

func run(base, isbn, user string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sec := &bearer{}
	c, err := ogenclient.NewClient(base, sec)
	if err != nil {
		return err
	}
	const password = "journey-password-1"
	email := user + "@example.com"

	res, err := c.Signup(ctx, &ogenclient.AuthSignupRequest{
		Username: ogenclient.NewOptString(user), Email: email, Password: password,
		DisplayName: ogenclient.NewOptString("Journey Reader"),
	}, ogenclient.SignupParams{IdempotencyKey: ogenclient.NewOptString("journey-signup-" + user)})
	signup, err := as[ogenclient.AuthTokenResponse]("signup", res, err)
	if err != nil {
		return err
	}
	if signup.Token == "" || signup.RefreshToken == "" {
		return errors.New("signup: no tokens")
	}

	lres, err := c.Login(ctx, &ogenclient.AuthLoginRequest{Email: email, Password: password})
	login, err := as[ogenclient.AuthTokenResponse]("login", lres, err)
	if err != nil {
		return err
	}
	sec.token = login.Token
	if u, ok := login.User.Get(); !ok || u.Username != user {
		return fmt.Errorf("login: user %+v, want %s", login.User, user)
	}

	bres, err := c.GetBookByISBN(ctx, ogenclient.GetBookByISBNParams{Isbn: isbn})
	byISBN, err := as[ogenclient.BookFull]("get book by ISBN", bres, err)
	if err != nil {
		return err
	}
	gres, err := c.GetBook(ctx, ogenclient.GetBookParams{ID: byISBN.ID})
	book, err := as[ogenclient.BookFull]("get book", gres, err)
	if err != nil {
		return err
	}
	if book.Title != byISBN.Title {
		return fmt.Errorf("get book: %q, by ISBN %q", book.Title, byISBN.Title)
	}

	cres, err := c.CreateLine(ctx, &ogenclient.NewLineRequest{
		BookId: book.ID, Content: "The spice must flow.", PageNumber: ogenclient.NewOptNilInt(42),
	}, ogenclient.CreateLineParams{IdempotencyKey: ogenclient.NewOptString("journey-line-" + user)})
	created, err := as[ogenclient.Line]("post a line", cres, err)
	if err != nil {
		return err
	}

	rres, err := c.GetLine(ctx, ogenclient.GetLineParams{ID: created.ID})
	line, err := as[ogenclient.Line]("read the line", rres, err)
	if err != nil {
		return err
	}
	if line.Content != "The spice must flow." || line.UserId != login.User.Value.ID {
		return fmt.Errorf("read the line: %+v", line)
	}

	fres, err := c.ListBookLines(ctx, ogenclient.ListBookLinesParams{ID: book.ID})
	feed, err := as[ogenclient.LineList]("the book's lines", fres, err)
	if err != nil {
		return err
	}
	if len(feed.Items) != 1 || feed.Items[0].ID != created.ID {
		return fmt.Errorf("the book's lines: %+v, want the one line", feed.Items)
	}

	tres, err := c.RefreshTokens(ctx, &ogenclient.AuthRefreshRequest{RefreshToken: login.RefreshToken})
	refreshed, err := as[ogenclient.AuthTokenResponse]("refresh", tres, err)
	if err != nil {
		return err
	}
	sec.token = refreshed.Token

	nres, err := c.GetLine(ctx, ogenclient.GetLineParams{ID: unknownID(created.ID)})
	missing, err := as[ogenclient.ErrorBody]("an unknown line", nres, err)
	if err != nil {
		return err
	}
	if missing.Error.Code != ogenclient.ErrorObjectCodeNOTFOUND {
		return fmt.Errorf("an unknown line: %+v", missing)
	}
	return nil
}

// unknownID is an id of like's type that names nothing: whether the
// document types ids as strings or as UUIDs, this stays one.
func unknownID[T any](like T) T {
	var id T
	if err := json.Unmarshal([]byte(`"00000000-0000-4000-8000-000000000000"`), &id); err != nil {
		panic(err)
	}
	return id
}
