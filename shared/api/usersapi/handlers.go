package usersapi

import "net/http"

func (h *Handler) getMe(w http.ResponseWriter, r *http.Request) error          { return nil }
func (h *Handler) updateMe(w http.ResponseWriter, r *http.Request) error       { return nil }
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request) error { return nil }
func (h *Handler) uploadAvatar(w http.ResponseWriter, r *http.Request) error   { return nil }
func (h *Handler) getByID(w http.ResponseWriter, r *http.Request) error        { return nil }
func (h *Handler) getByUsername(w http.ResponseWriter, r *http.Request) error  { return nil }
