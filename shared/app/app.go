// Package app wires the service together: it builds the AWS clients from
// the configuration, the stores and services on top of them, and the
// endpoint groups. Every Lambda main, the local server and the tests build
// the service through this package, so they all run the same code.
package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/bookplatform/backend/shared/api/authapi"
	"github.com/bookplatform/backend/shared/api/booksapi"
	"github.com/bookplatform/backend/shared/api/healthapi"
	"github.com/bookplatform/backend/shared/api/linesapi"
	"github.com/bookplatform/backend/shared/api/reviewsapi"
	"github.com/bookplatform/backend/shared/api/usersapi"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/reviews"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/bookplatform/backend/shared/users"
)

// App is the wired service.
type App struct {
	Config config.Config
	Logger *slog.Logger
	DB     *dynamodb.Client
	S3     *s3.Client
	Store  *dynamo.Store
	Media  *s3media.Store
	Tokens *auth.Tokens
	Users  *users.Service
	Books  *books.Service
	Lines  *lines.Service
	// Reviews is the reviews feature (shared/reviews).
	Reviews *reviews.Service
	// Quota is the free tier's monthly content quota (shared/quota).
	Quota quota.Policy
	Now   func() time.Time
}

// Clients are the AWS clients the app runs on.
type Clients struct {
	DynamoDB *dynamodb.Client
	S3       *s3.Client
}

// LoadClients builds the AWS clients from the SDK's default chain; the
// endpoints come from AWS_ENDPOINT_URL_DYNAMODB / _S3 / _SQS when set.
func LoadClients(ctx context.Context) (Clients, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return Clients{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	return NewClients(awsCfg), nil
}

// NewClients builds the clients from an AWS configuration.
func NewClients(awsCfg aws.Config) Clients {
	return Clients{DynamoDB: dynamo.NewClient(awsCfg), S3: s3media.NewClient(awsCfg)}
}

// New wires the app. now may be nil for the wall clock.
func New(cfg config.Config, clients Clients, logger *slog.Logger, now func() time.Time) *App {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = NewLogger(cfg.LogLevel)
	}
	a := &App{Config: cfg, Logger: logger, DB: clients.DynamoDB, S3: clients.S3, Now: now}
	a.Store = dynamo.NewStore(clients.DynamoDB, cfg.TableName, now)
	a.Media = s3media.NewStore(clients.S3, cfg.MediaBucket, cfg.MediaBaseURL)
	a.Tokens = auth.NewTokens(cfg.JWTSecret, cfg.AccessTokenTTL, now)
	a.Users = users.NewService(users.Deps{
		Store: a.Store, Sessions: a.Store, Tokens: a.Tokens, Media: a.Media,
		RefreshTTL: cfg.RefreshTokenTTL, BcryptCost: cfg.BcryptCost, Now: now,
	})
	a.Books = books.NewService(books.Deps{Store: a.Store, Now: now})
	a.Quota = quota.Policy{FreePosts: cfg.MonthlyPosts, FreeReviews: cfg.MonthlyReviews, UpgradeURL: cfg.UpgradeURL}
	a.Lines = lines.NewService(lines.Deps{Store: a.Store, Quota: a.Quota, Now: now})
	a.Reviews = reviews.NewService(reviews.Deps{Store: a.Store, Quota: a.Quota, Now: now})
	return a
}

// FromEnv is what a Lambda main does: configuration, clients, app.
func FromEnv(ctx context.Context) (*App, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, err
	}
	clients, err := LoadClients(ctx)
	if err != nil {
		return nil, err
	}
	return New(cfg, clients, nil, nil), nil
}

// NewLogger returns the JSON logger at the given level.
func NewLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: l}))
}

// Groups returns every endpoint group served by a's services. With a nil
// app the handlers are empty: the tables can be listed, not served.
func Groups(a *App) []httpapi.Group {
	var (
		u *users.Service
		b *books.Service
		l *lines.Service
		r *reviews.Service
	)
	if a != nil {
		u, b = a.Users, a.Books
		l = a.Lines
		r = a.Reviews
	}
	return []httpapi.Group{
		healthapi.Group(),
		(&authapi.Handler{Users: u}).Group(),
		(&usersapi.Handler{Users: u}).Group(),
		(&booksapi.Handler{Books: b}).Group(),
		(&linesapi.Handler{Lines: l}).Group(),
		(&reviewsapi.Handler{Reviews: r}).Group(),
	}
}

// Router returns the router for the named groups (all groups when none
// are named).
func (a *App) Router(names ...string) *httpapi.Router {
	var selected []httpapi.Group
	for _, g := range Groups(a) {
		if len(names) == 0 || contains(names, g.Name) {
			selected = append(selected, g)
		}
	}
	return a.newRouter(selected)
}

func (a *App) newRouter(groups []httpapi.Group) *httpapi.Router {
	return httpapi.NewRouter(httpapi.Options{
		Identity:     identity{a},
		Counter:      a.Store,
		Logger:       a.Logger,
		MaxBodyBytes: a.Config.MaxBodyBytes,
		CursorKey:    cursorKey(a.Config.JWTSecret),
		Quota:        a.Quota,
		Now:          a.Now,
	}, groups...)
}

// FallbackRouter serves API Gateway's $default route from the health
// function: it knows every group's routes, so an unmatched request gets
// the envelope's 404 or 405, but it runs only the health group's handlers.
// A request the gateway did not route and this table matches anyway is
// answered 404 rather than run without its group's permissions.
func (a *App) FallbackRouter() *httpapi.Router {
	var groups []httpapi.Group
	for _, g := range Groups(a) {
		if g.Name != "health" {
			routes := make([]httpapi.Route, len(g.Routes))
			for i, r := range g.Routes {
				routes[i] = httpapi.Route{Method: r.Method, Path: r.Path, Auth: httpapi.AuthNone, Unmetered: true, Handler: notRoutedHere}
			}
			g.Routes = routes
		}
		groups = append(groups, g)
	}
	return a.newRouter(groups)
}

func notRoutedHere(_ http.ResponseWriter, r *http.Request) error {
	return apperr.NotFound("No route for %s %s", r.Method, r.URL.Path)
}

// identity adapts the app to httpapi.Identity.
type identity struct{ a *App }

func (i identity) VerifyAccessToken(token string) (auth.Claims, error) {
	return i.a.Tokens.Verify(token)
}

func (i identity) GetUser(ctx context.Context, id string) (*users.User, error) {
	return i.a.Store.GetUser(ctx, id)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cursorKey derives the cursor-sealing key from the JWT secret, so there is
// one secret to manage and the two uses never share a key.
func cursorKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("bookplatform pagination cursors"))
	return m.Sum(nil)
}
