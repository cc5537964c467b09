package authapi

import "net/http"

func (h *Handler) guest(w http.ResponseWriter, r *http.Request) error        { return nil }
func (h *Handler) signup(w http.ResponseWriter, r *http.Request) error       { return nil }
func (h *Handler) login(w http.ResponseWriter, r *http.Request) error        { return nil }
func (h *Handler) refresh(w http.ResponseWriter, r *http.Request) error      { return nil }
func (h *Handler) migrateGuest(w http.ResponseWriter, r *http.Request) error { return nil }
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) error       { return nil }
