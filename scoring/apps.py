from django.apps import AppConfig
from django.urls import register_converter
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Kozel scoring")

    def ready(self) -> None:
        from scoring.lib.ids import IdConverter, TokenConverter

        # Before any URL module names them: ids and tokens in paths (scoring.lib.ids).
        register_converter(IdConverter, "id")
        register_converter(TokenConverter, "token")
