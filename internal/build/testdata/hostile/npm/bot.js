console.log("bot")
