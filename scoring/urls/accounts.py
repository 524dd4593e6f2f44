"""URLs: accounts (under /accounts/): sign up, log in (by a login link too) and out, password
change and reset."""

from django.contrib.auth import views as auth
from django.urls import path

from scoring.views import accounts

urlpatterns = [
    path("", accounts.account, name="account"),
    path("signup/", accounts.signup, name="signup"),
    path("data/", accounts.account_data, name="account_data"),
    path("delete/", accounts.account_delete, name="account_delete"),
    path("login/", accounts.LoginView.as_view(), name="login"),
    path("login/link/", accounts.login_link_new, name="login_link_new"),
    path("login/link/<uidb64>/<token>/", accounts.login_link, name="login_link"),
    path("logout/", auth.LogoutView.as_view(), name="logout"),
    path("password/", accounts.PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", auth.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("password/reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password/reset/sent/",
        auth.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/complete/",
        auth.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
